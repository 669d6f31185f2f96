// The answers the host keeps for configuration inputs (inputs.hpp). Each answer is one secret-store
// entry under input_secret_key(place, id); beside them, in the same store, one index entry per
// answer — the file, the input id, its description and whether it is a password, never the value —
// because a secret store cannot be listed (the Secret Service and the credentials file are looked
// up by key only). The index is what `mcph inputs list` shows and what `forget` walks; it lives
// where the answers live, so it is exactly as private as they are.
//
// Index changes (read, change, write) run under a cross-process lock (secrets/key_lock.hpp) in the
// store's lock folder, so two mcph processes keeping answers at once cannot drop each other's entry.
#pragma once

#include "plugins/host_services.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcph::config {

// The index's own key in the secret store (no answer key starts with it).
inline constexpr const char* kKeptInputsIndexKey = "mcph-input-index";
// Bounds: the index is a secret-store value read whole, so it stays small. An answer beyond the
// entry bound is used for the command but not kept (the caller says so); a longer description is
// cut (it is only shown).
inline constexpr std::size_t kMaxKeptAnswers = 512;
inline constexpr std::size_t kMaxKeptDescription = 512;

struct KeptAnswer {
    std::string key;     // the answer's secret-store key
    std::string file;    // the canonical path of the defining file; empty for a document not from a file
    std::string origin;  // where the document came from, as messages name it
    std::string id;
    std::string description;
    bool password = false;
};

class KeptInputs {
public:
    // `lock_folder`: the store's lock folder (empty for a store private to the process: the memory
    // store, where an in-process mutex is enough).
    KeptInputs(std::shared_ptr<plugins::SecretStore> store, std::filesystem::path lock_folder);

    // The kept answer under `entry.key`, or nullopt. A kept answer the index lacks (an index
    // entry lost to a crash between the two writes) is indexed again, so it can be listed; an
    // index that cannot be changed is left as it is (the answer is still returned).
    std::optional<std::string> find(const KeptAnswer& entry);
    // Keeps `value` under entry.key and indexes it (replacing an entry of the same key). Throws
    // mcph::Error(Usage) naming kMaxKeptAnswers when the index is full (nothing is written), and
    // the store's errors.
    void keep(const KeptAnswer& entry, const std::string& value);
    // An answer kept under an older key (the origin as typed, before keys were canonical paths):
    // moved under entry.key and indexed. Returns the answer, or nullopt when there is none.
    std::optional<std::string> adopt(const std::string& old_key, const KeptAnswer& entry);

    // Every indexed answer that is still in the store, in the order they were kept. Throws
    // mcph::Error(Usage) when the index is not what mcph writes (naming the key and how to reset it).
    std::vector<KeptAnswer> list();
    // Erases the answers `which` selects and their index entries; returns them. With `which`
    // unset, every answer — and an unreadable index is reset rather than refused.
    std::vector<KeptAnswer> forget(const std::function<bool(const KeptAnswer&)>& which);

private:
    std::vector<KeptAnswer> read_index();
    void write_index(const std::vector<KeptAnswer>& entries);

    std::shared_ptr<plugins::SecretStore> store_;
    std::filesystem::path lock_folder_;
};

// The place answers of a file are kept under: its canonical path (symlinks and `.`/`..` resolved,
// so `./a.json` and `$PWD/a.json` are one file), or the path made absolute when it cannot be
// resolved (a file that is gone still has one place).
std::string canonical_input_place(const std::filesystem::path& file);

}  // namespace mcph::config
