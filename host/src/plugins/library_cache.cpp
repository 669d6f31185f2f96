#include "plugins/library_cache.hpp"

#include <mcph/plugin_api.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <mutex>
#include <vector>

namespace mcph::plugins {
namespace {

using Library = PluginLibrary;

// What "the same file on disk" means: a rename over it changes the inode, a rewrite in place
// the mtime or the size.
struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    decltype(timespec::tv_sec) mtime_s = 0;
    decltype(timespec::tv_nsec) mtime_ns = 0;
    off_t size = 0;
    bool operator==(const FileIdentity& o) const {
        return device == o.device && inode == o.inode && mtime_s == o.mtime_s && mtime_ns == o.mtime_ns && size == o.size;
    }
};

bool identify_file(const std::filesystem::path& file, FileIdentity& id) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return false;
    id = {st.st_dev, st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_size};
    return true;
}

struct CachedFile {
    FileIdentity identity;
    MappedLibrary library;
    // Earlier mappings of this path that a live object may still hold: glibc's dlopen matches an
    // already-loaded object by name before it looks at the file, so while one of these lives a
    // dlopen of the same path answers the stale copy (found out by comparing handles).
    std::vector<std::weak_ptr<const Library>> retired;
};

struct LibraryCache {
    std::mutex mutex;
    std::map<std::filesystem::path, CachedFile> files;
    std::size_t opened = 0;
};

// Never destroyed: the libraries stay mapped until the process ends, so no plugin code is
// unmapped during static destruction while a thread or an atexit handler of it could still run.
LibraryCache& library_cache() {
    static auto* cache = new LibraryCache;
    return *cache;
}

MappedLibrary open_library(const std::filesystem::path& file, std::size_t& opened, std::string& error) {
    try {
        // rtld_local keeps each plugin's symbols to itself; rtld_now surfaces missing symbols here.
        ++opened;
        return std::make_shared<const Library>(
            boost::dll::shared_library(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local));
    } catch (const std::exception& e) {
        error = std::string("not loadable: ") + e.what();
        return nullptr;
    }
}

bool is_still_mapped_copy(const CachedFile& cached, const Library& fresh) {
    return std::any_of(cached.retired.begin(), cached.retired.end(), [&](const auto& weak) {
        auto old = weak.lock();
        return old && old->library.native() == fresh.library.native();
    });
}

}  // namespace

bool PluginLibrary::option_unsupported(std::string_view key) const {
    std::lock_guard lock(mutex_);
    return unsupported_options_.find(key) != unsupported_options_.end();
}

void PluginLibrary::note_option_unsupported(std::string_view key) const {
    std::lock_guard lock(mutex_);
    unsupported_options_.emplace(key);
}

MappedLibrary map_plugin_library(const std::filesystem::path& file, std::string& error) {
    auto& cache = library_cache();
    std::lock_guard lock(cache.mutex);
    FileIdentity id;
    if (!identify_file(file, id)) return open_library(file, cache.opened, error);  // dlopen says why
    auto& cached = cache.files[file];
    if (cached.library && cached.identity == id) return cached.library;
    if (cached.library) cached.retired.push_back(std::exchange(cached.library, nullptr));  // changed on disk
    cached.retired.erase(std::remove_if(cached.retired.begin(), cached.retired.end(), [](const auto& w) { return w.expired(); }),
                         cached.retired.end());
    auto fresh = open_library(file, cache.opened, error);
    if (!fresh) return nullptr;
    if (is_still_mapped_copy(cached, *fresh)) {
        error = "not loadable: the file changed on disk while the copy loaded earlier is still in use in this "
                "process; the new file loads once that copy's objects are gone (or in a new process)";
        return nullptr;
    }
    // Only plugins are kept: any other library in a plugin folder is unmapped once the loader
    // has said why it refused it, as before. (ABI and init failures are the loader's business:
    // init runs again for each host, so a plugin whose init failed is not remembered as loaded.)
    if (!fresh->library.has(MCPH_ENTRY_SYMBOL)) return fresh;
    cached.identity = id;
    cached.library = fresh;
    return fresh;
}

std::size_t plugin_libraries_opened() {
    auto& cache = library_cache();
    std::lock_guard lock(cache.mutex);
    return cache.opened;
}

}  // namespace mcph::plugins
