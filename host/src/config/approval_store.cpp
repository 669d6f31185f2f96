#include "config/approval_store.hpp"

#include "config/atomic_write.hpp"
#include "config/file_trust.hpp"
#include "json/json_access.hpp"
#include "tools/sha256.hpp"

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

constexpr TrustRule kPrivate{Owner::CurrentUser, false};

// An exclusive advisory lock on "<file>.lock" for one read-modify-write. flock locks belong to
// the open file description, so two threads of one process exclude each other as two processes do.
// O_NOFOLLOW: a symlink planted in its place must not make mcph create or open another file.
class ExclusiveLock {
public:
    explicit ExclusiveLock(const fs::path& file) {
        const fs::path lock = file.string() + ".lock";
        fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd_ < 0) fail(lock, "cannot open (a symlink there is refused)");
        struct stat st {};
        std::optional<std::string> why;
        if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode))
            why = lock.string() + " is not a regular file; refusing to lock it";
        else
            why = distrust_reason(lock, st, kPrivate);
        if (why) {
            ::close(fd_);
            throw Error(ErrorKind::Usage, *why);
        }
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

// Anyone who can write the file, or replace it in its folder, can approve servers in the user's name.
void check_private(const fs::path& file) {
    for (const fs::path& p : {file.parent_path(), file})
        if (auto why = distrust_reason(p, kPrivate))
            throw Error(ErrorKind::Usage, "approvals file " + file.string() + ": " + *why);
}

std::string required_string(const fs::path& file, const JsonValue& item, const char* key) {
    const JsonValue* v = json::member(item, key);
    if (!v || !v->IsString()) corrupt(file, std::string("an approval lacks the string \"") + key + "\"");
    return std::string(json::view(*v));
}

void read_pin_map(const fs::path& file, const JsonValue& pins, const char* key, std::map<std::string, std::string>& out) {
    const JsonValue* map = json::member(pins, key);
    if (!map) return;
    if (!map->IsObject()) corrupt(file, std::string("pins.") + key + " is not an object");
    for (const auto& m : map->GetObject()) {
        if (!m.value.IsString()) corrupt(file, std::string("a pin in pins.") + key + " is not a string");
        out.emplace(json::view(m.name), json::view(m.value));
    }
}

Approval approval_from_json(const fs::path& file, const JsonValue& item) {
    if (!item.IsObject()) corrupt(file, "an approval is not an object");
    Approval a;
    a.key.scope = required_string(file, item, "scope");
    a.key.origin = required_string(file, item, "origin");
    a.key.project = required_string(file, item, "project");
    a.key.server = required_string(file, item, "server");
    a.signature = required_string(file, item, "signature");
    a.approved_at = required_string(file, item, "approvedAt");
    const JsonValue* pins = json::member(item, "pins");
    if (!pins || !pins->IsObject()) corrupt(file, "an approval lacks its \"pins\" object");
    read_pin_map(file, *pins, "tools", a.pins.tools);
    read_pin_map(file, *pins, "prompts", a.pins.prompts);
    read_pin_map(file, *pins, "resources", a.pins.resources);
    a.pins.instructions = required_string(file, *pins, "instructions");
    return a;
}

JsonValue pin_map_json(const std::map<std::string, std::string>& pins, Json::AllocatorType& alloc) {
    JsonValue out(rapidjson::kObjectType);
    for (const auto& [name, hash] : pins) out.AddMember(json::string_value(name, alloc), json::string_value(hash, alloc), alloc);
    return out;
}

JsonValue approval_to_json(const Approval& a, Json::AllocatorType& alloc) {
    JsonValue item(rapidjson::kObjectType);
    item.AddMember("scope", json::string_value(a.key.scope, alloc), alloc);
    item.AddMember("origin", json::string_value(a.key.origin, alloc), alloc);
    item.AddMember("project", json::string_value(a.key.project, alloc), alloc);
    item.AddMember("server", json::string_value(a.key.server, alloc), alloc);
    item.AddMember("signature", json::string_value(a.signature, alloc), alloc);
    JsonValue pins(rapidjson::kObjectType);
    pins.AddMember("tools", pin_map_json(a.pins.tools, alloc), alloc);
    pins.AddMember("prompts", pin_map_json(a.pins.prompts, alloc), alloc);
    pins.AddMember("resources", pin_map_json(a.pins.resources, alloc), alloc);
    pins.AddMember("instructions", json::string_value(a.pins.instructions, alloc), alloc);
    item.AddMember("pins", pins, alloc);
    item.AddMember("approvedAt", json::string_value(a.approved_at, alloc), alloc);
    return item;
}

// The whole store; empty when the file does not exist. Throws on anything unexpected.
std::vector<Approval> read_store(const fs::path& file) {
    check_private(file);  // the folder; the file itself is judged by what is opened
    std::optional<std::string> text;
    try {
        text = read_trusted_file(file, kPrivate);
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, "approvals file " + file.string() + ": " + e.what());
    }
    if (!text) return {};
    Json doc;
    try {
        doc = parse_json(*text, "JSON");
    } catch (const Error& e) {
        corrupt(file, e.what());
    }
    const JsonValue* list = json::array_member(doc, "approvals");
    const JsonValue* version = json::member(doc, "version");
    if (!list || !version || !version->IsInt()) corrupt(file, "expected {\"version\":2,\"approvals\":[...]}");
    std::vector<Approval> out;
    // Version 1 keyed approvals by bare name, which is what let one project's approval reach another
    // project's server: those records are not honoured (nor kept). The user approves again.
    if (version->GetInt() == 1) return out;
    if (version->GetInt() != 2) corrupt(file, "unknown version " + std::to_string(version->GetInt()));
    for (const JsonValue& item : list->GetArray()) out.push_back(approval_from_json(file, item));
    return out;
}

void write_store(const fs::path& file, const std::vector<Approval>& approvals) {
    Json doc(rapidjson::kObjectType);
    auto& alloc = doc.GetAllocator();
    doc.AddMember("version", 2, alloc);
    JsonValue list(rapidjson::kArrayType);
    for (const Approval& a : approvals) list.PushBack(approval_to_json(a, alloc), alloc);
    doc.AddMember("approvals", list, alloc);
    write_file_atomically(file, to_pretty_json(doc) + "\n", 0600);
}

}  // namespace

ApprovalStore::ApprovalStore(fs::path file) : file_(std::move(file)) {}

std::optional<Approval> ApprovalStore::find(const ApprovalKey& key) const {
    for (Approval& a : read_store(file_))
        if (a.key == key) return std::move(a);
    return std::nullopt;
}

std::vector<Approval> ApprovalStore::list() const { return read_store(file_); }

void ApprovalStore::save(const Approval& approval) {
    if (approval.key.server.empty()) throw Error(ErrorKind::Usage, "an approval needs a server name");
    Approval record = approval;
    if (record.approved_at.empty()) record.approved_at = now_iso8601();
    create_private_directories(file_.parent_path());
    ExclusiveLock lock(file_);
    std::vector<Approval> all = read_store(file_);
    bool replaced = false;
    for (Approval& a : all)
        if (a.key == record.key) {
            a = record;
            replaced = true;
        }
    if (!replaced) all.push_back(std::move(record));
    write_store(file_, all);
}

bool ApprovalStore::remove(const ApprovalKey& key) {
    std::error_code ec;
    if (!fs::exists(file_, ec)) return false;
    ExclusiveLock lock(file_);
    std::vector<Approval> all = read_store(file_);
    const auto removed = std::erase_if(all, [&](const Approval& a) { return a.key == key; });
    if (removed == 0) return false;
    write_store(file_, all);
    return true;
}

std::size_t ApprovalStore::remove_defined_in(const std::string& origin, const std::string& server) {
    std::error_code ec;
    if (!fs::exists(file_, ec)) return 0;
    ExclusiveLock lock(file_);
    std::vector<Approval> all = read_store(file_);
    const auto removed = std::erase_if(all, [&](const Approval& a) { return a.key.origin == origin && a.key.server == server; });
    if (removed > 0) write_store(file_, all);
    return removed;
}

std::string ApprovalStore::now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

ApprovalKey agent_file_approval_key(const std::string& file, const std::string& project_root, const std::string& agent) {
    return {"agent-file", file, project_root, agent};
}

std::string agent_file_signature(std::string_view content) { return "sha256:" + tools::sha256_hex(content); }

}  // namespace mcph::config
