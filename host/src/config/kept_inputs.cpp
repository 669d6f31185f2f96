#include "config/kept_inputs.hpp"

#include "json/json_access.hpp"
#include "secrets/key_lock.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>
#include <mcph/text.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>

namespace mcph::config {
namespace fs = std::filesystem;
namespace {

constexpr int kIndexVersion = 1;
// How long a command waits for another process's index change (each is a few store round trips).
constexpr std::chrono::milliseconds kIndexLockWait{5000};

// Threads of this process exclude each other here; other processes through the lock file.
std::mutex& index_mutex() {
    static std::mutex m;
    return m;
}

struct IndexLock {
    std::unique_lock<std::mutex> in_process;
    std::unique_ptr<secrets::KeyLock> across_processes;
};

IndexLock lock_index(const fs::path& folder) {
    IndexLock out{std::unique_lock<std::mutex>(index_mutex()), nullptr};
    if (!folder.empty()) out.across_processes = secrets::KeyLock::acquire(folder, kKeptInputsIndexKey, kIndexLockWait);
    return out;
}

[[noreturn]] void bad_index(const std::string& why) {
    throw Error(ErrorKind::Usage, std::string("the index of kept input answers (secret-store key \"") + kKeptInputsIndexKey +
                                      "\") " + why + "; `mcph inputs forget --all` resets it");
}

KeptAnswer kept_entry_of(const JsonValue& v) {
    if (!v.IsObject()) bad_index("has an entry that is not an object");
    KeptAnswer e{json::string_or(v, "key"),         json::string_or(v, "file"), json::string_or(v, "origin"),
                 json::string_or(v, "id"),          json::string_or(v, "description"),
                 json::bool_or(v, "password", false)};
    if (e.key.empty() || e.id.empty()) bad_index("has an entry without \"key\" or \"id\"");
    return e;
}

std::string bounded_description(const std::string& text) {
    if (text.size() <= kMaxKeptDescription) return text;
    return repair_utf8(std::string_view(text).substr(0, kMaxKeptDescription)) + "...";
}

bool answer_indexed(const std::vector<KeptAnswer>& entries, const std::string& key) {
    return std::any_of(entries.begin(), entries.end(), [&](const KeptAnswer& e) { return e.key == key; });
}

}  // namespace

KeptInputs::KeptInputs(std::shared_ptr<plugins::SecretStore> store, fs::path lock_folder)
    : store_(std::move(store)), lock_folder_(std::move(lock_folder)) {}

std::vector<KeptAnswer> KeptInputs::read_index() {
    const std::optional<std::string> text = store_->get(kKeptInputsIndexKey);
    if (!text) return {};
    Json doc;
    try {
        doc = parse_json(*text, "kept inputs index");
    } catch (const Error& e) {
        bad_index(std::string("is not JSON: ") + e.what());
    }
    const JsonValue* answers = doc.IsObject() ? json::array_member(doc, "answers") : nullptr;
    if (!answers) bad_index("has no \"answers\" list");
    std::vector<KeptAnswer> out;
    for (const JsonValue& v : answers->GetArray()) out.push_back(kept_entry_of(v));
    return out;
}

void KeptInputs::write_index(const std::vector<KeptAnswer>& entries) {
    if (entries.empty()) {
        store_->erase(kKeptInputsIndexKey);
        return;
    }
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    JsonValue list(rapidjson::kArrayType);
    for (const KeptAnswer& e : entries) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("key", json::string_value(e.key, a), a);
        v.AddMember("file", json::string_value(e.file, a), a);
        v.AddMember("origin", json::string_value(e.origin, a), a);
        v.AddMember("id", json::string_value(e.id, a), a);
        v.AddMember("description", json::string_value(e.description, a), a);
        v.AddMember("password", e.password, a);
        list.PushBack(v, a);
    }
    doc.AddMember("version", kIndexVersion, a);
    doc.AddMember("answers", list, a);
    store_->set(kKeptInputsIndexKey, to_json(doc));
}

std::optional<std::string> KeptInputs::find(const KeptAnswer& entry) {
    std::optional<std::string> kept = store_->get(entry.key);
    if (!kept) return std::nullopt;
    try {
        const IndexLock lock = lock_index(lock_folder_);
        std::vector<KeptAnswer> entries = read_index();
        if (!answer_indexed(entries, entry.key) && entries.size() < kMaxKeptAnswers) {
            KeptAnswer e = entry;
            e.description = bounded_description(e.description);
            entries.push_back(std::move(e));
            write_index(entries);
        }
    } catch (const Error&) {
        // The index is for listing: an unreadable one (or a lock held too long) must not stop the
        // answer from being used. `list` names the problem.
    }
    return kept;
}

void KeptInputs::keep(const KeptAnswer& entry, const std::string& value) {
    const IndexLock lock = lock_index(lock_folder_);
    std::vector<KeptAnswer> entries = read_index();
    std::erase_if(entries, [&](const KeptAnswer& e) { return e.key == entry.key; });
    if (entries.size() >= kMaxKeptAnswers)
        throw Error(ErrorKind::Usage, "the secret store keeps at most " + std::to_string(kMaxKeptAnswers) +
                                          " input answers; `mcph inputs forget` some (`mcph inputs list` shows them)");
    KeptAnswer e = entry;
    e.description = bounded_description(e.description);
    entries.push_back(std::move(e));
    // The answer first: an index entry must not name an answer that was never written.
    store_->set(entry.key, value);
    write_index(entries);
}

std::optional<std::string> KeptInputs::adopt(const std::string& old_key, const KeptAnswer& entry) {
    if (old_key == entry.key) return std::nullopt;
    std::optional<std::string> old = store_->get(old_key);
    if (!old) return std::nullopt;
    keep(entry, *old);
    store_->erase(old_key);
    return old;
}

std::vector<KeptAnswer> KeptInputs::list() {
    std::vector<KeptAnswer> out;
    for (KeptAnswer& e : read_index())
        if (store_->get(e.key)) out.push_back(std::move(e));  // the value is looked at, never returned
    return out;
}

std::vector<KeptAnswer> KeptInputs::forget(const std::function<bool(const KeptAnswer&)>& which) {
    const IndexLock lock = lock_index(lock_folder_);
    std::vector<KeptAnswer> entries;
    try {
        entries = read_index();
    } catch (const Error&) {
        if (which) throw;
        store_->erase(kKeptInputsIndexKey);  // --all: a broken index is reset, not a dead end
        return {};
    }
    std::vector<KeptAnswer> forgotten, kept;
    for (KeptAnswer& e : entries) (!which || which(e) ? forgotten : kept).push_back(std::move(e));
    for (const KeptAnswer& e : forgotten) store_->erase(e.key);
    if (!forgotten.empty()) write_index(kept);
    return forgotten;
}

std::string canonical_input_place(const fs::path& file) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(file, ec);
    if (ec) resolved = fs::absolute(file, ec).lexically_normal();
    return (ec ? file : resolved).string();
}

}  // namespace mcph::config
