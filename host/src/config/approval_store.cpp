#include "config/approval_store.hpp"

#include "config/atomic_write.hpp"
#include "json/json_access.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcph::config {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void corrupt(const fs::path& file, const std::string& why) {
    throw Error(ErrorKind::Usage, "approvals file " + file.string() + " is corrupt (" + why +
                                      "); fix it or delete it — mcph will then ask again before starting project servers");
}

// An exclusive advisory lock on "<file>.lock" for one read-modify-write. flock locks belong to
// the open file description, so two threads of one process exclude each other as two processes do.
class ExclusiveLock {
public:
    explicit ExclusiveLock(const fs::path& file) {
        const fs::path lock = file.string() + ".lock";
        fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd_ < 0) fail(lock, "cannot open");
        while (::flock(fd_, LOCK_EX) != 0)
            if (errno != EINTR) fail(lock, "cannot lock");
    }
    ~ExclusiveLock() { ::close(fd_); }  // closing releases the lock
    ExclusiveLock(const ExclusiveLock&) = delete;
    ExclusiveLock& operator=(const ExclusiveLock&) = delete;

private:
    [[noreturn]] void fail(const fs::path& lock, const char* what) {
        const int err = errno;
        if (fd_ >= 0) ::close(fd_);
        throw Error(ErrorKind::Usage, std::string(what) + " " + lock.string() + ": " + std::strerror(err));
    }
    int fd_ = -1;
};

// Anyone who can write the file can approve servers in the user's name.
void check_not_writable_by_others(const fs::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return;  // absent: read_file_if_exists decides
    if ((st.st_mode & 022) == 0) return;
    throw Error(ErrorKind::Usage, "approvals file " + file.string() +
                                      " is writable by other users, who could approve servers for you; refusing to use it (run: chmod 600 " +
                                      file.string() + ")");
}

std::string required_string(const fs::path& file, const JsonValue& item, const char* key) {
    const JsonValue* v = json::member(item, key);
    if (!v || !v->IsString()) corrupt(file, std::string("an approval lacks the string \"") + key + "\"");
    return std::string(json::view(*v));
}

Approval approval_from_json(const fs::path& file, const JsonValue& item) {
    if (!item.IsObject()) corrupt(file, "an approval is not an object");
    Approval a;
    a.project_key = required_string(file, item, "project");
    a.server = required_string(file, item, "server");
    a.signature = required_string(file, item, "signature");
    a.approved_at = required_string(file, item, "approvedAt");
    if (const JsonValue* pins = json::member(item, "toolPins")) {
        if (!pins->IsObject()) corrupt(file, "toolPins is not an object");
        for (const auto& m : pins->GetObject()) {
            if (!m.value.IsString()) corrupt(file, "a tool pin is not a string");
            a.tool_pins.emplace(json::view(m.name), json::view(m.value));
        }
    }
    return a;
}

JsonValue approval_to_json(const Approval& a, Json::AllocatorType& alloc) {
    JsonValue item(rapidjson::kObjectType);
    item.AddMember("project", json::string_value(a.project_key, alloc), alloc);
    item.AddMember("server", json::string_value(a.server, alloc), alloc);
    item.AddMember("signature", json::string_value(a.signature, alloc), alloc);
    JsonValue pins(rapidjson::kObjectType);
    for (const auto& [tool, hash] : a.tool_pins) pins.AddMember(json::string_value(tool, alloc), json::string_value(hash, alloc), alloc);
    item.AddMember("toolPins", pins, alloc);
    item.AddMember("approvedAt", json::string_value(a.approved_at, alloc), alloc);
    return item;
}

// The whole store; empty when the file does not exist. Throws on anything unexpected.
std::vector<Approval> read_store(const fs::path& file) {
    check_not_writable_by_others(file);
    const std::optional<std::string> text = read_file_if_exists(file);
    if (!text) return {};
    Json doc;
    try {
        doc = parse_json(*text, "JSON");
    } catch (const Error& e) {
        corrupt(file, e.what());
    }
    const JsonValue* list = json::array_member(doc, "approvals");
    if (!list) corrupt(file, "expected {\"version\":1,\"approvals\":[...]}");
    std::vector<Approval> out;
    for (const JsonValue& item : list->GetArray()) out.push_back(approval_from_json(file, item));
    return out;
}

void write_store(const fs::path& file, const std::vector<Approval>& approvals) {
    Json doc(rapidjson::kObjectType);
    auto& alloc = doc.GetAllocator();
    doc.AddMember("version", 1, alloc);
    JsonValue list(rapidjson::kArrayType);
    for (const Approval& a : approvals) list.PushBack(approval_to_json(a, alloc), alloc);
    doc.AddMember("approvals", list, alloc);
    write_file_atomically(file, to_pretty_json(doc) + "\n", 0600);
}

bool same_key(const Approval& a, const std::string& project_key, const std::string& server) {
    return a.project_key == project_key && a.server == server;
}

}  // namespace

ApprovalStore::ApprovalStore(fs::path file) : file_(std::move(file)) {}

std::optional<Approval> ApprovalStore::find(const std::string& project_key, const std::string& server) const {
    for (Approval& a : read_store(file_))
        if (same_key(a, project_key, server)) return std::move(a);
    return std::nullopt;
}

std::vector<Approval> ApprovalStore::list() const { return read_store(file_); }

void ApprovalStore::save(const Approval& approval) {
    if (approval.server.empty()) throw Error(ErrorKind::Usage, "an approval needs a server name");
    Approval record = approval;
    if (record.approved_at.empty()) record.approved_at = now_iso8601();
    create_private_directories(file_.parent_path());
    ExclusiveLock lock(file_);
    std::vector<Approval> all = read_store(file_);
    bool replaced = false;
    for (Approval& a : all)
        if (same_key(a, record.project_key, record.server)) {
            a = record;
            replaced = true;
        }
    if (!replaced) all.push_back(std::move(record));
    write_store(file_, all);
}

bool ApprovalStore::remove(const std::string& project_key, const std::string& server) {
    std::error_code ec;
    if (!fs::exists(file_, ec)) return false;
    ExclusiveLock lock(file_);
    std::vector<Approval> all = read_store(file_);
    const auto removed = std::erase_if(all, [&](const Approval& a) { return same_key(a, project_key, server); });
    if (removed == 0) return false;
    write_store(file_, all);
    return true;
}

std::string ApprovalStore::now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace mcph::config
