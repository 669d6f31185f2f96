// Plugin libraries stay mapped for the life of the process, shared by every Host.
//
// Why: a process that creates Hosts one after another (an application re-creating its host per
// workspace, a benchmark, tests) paid dlopen + relocation of the plugin and everything it links
// (libcurl, OpenSSL, libwebsockets: ~0.35 ms for the HTTP plugin) on every Host, and dlclose on
// every destruction. Only the mapping is shared: each Host still runs the plugin's init (with its
// own services table, which must stay valid until shutdown) and shutdown, as before.
//
// A file is identified by its canonical path and its identity on disk (device, inode, mtime,
// size): a file replaced or rewritten on disk is mapped anew, never the stale copy. Only files
// exporting mcph_plugin_entry are remembered: one that fails to map, or any other library, is not.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace mcph::plugins {

// One mapped plugin file, and what the process learnt about it that holds for every Host.
struct PluginLibrary {
    explicit PluginLibrary(boost::dll::shared_library so) : library(std::move(so)) {}
    boost::dll::shared_library library;

    // The transport option keys this plugin answered MCPH_ERR_UNSUPPORTED to (an unknown key, by
    // the ABI: a property of the plugin, not of one transport object). The host stops asking, so a
    // C++ plugin whose Transport keeps the helper's default set_option does not throw and unwind
    // for each lifecycle option (era, protocol-version, initialized) of every handshake.
    bool option_unsupported(std::string_view key) const;
    void note_option_unsupported(std::string_view key) const;

private:
    mutable std::mutex mutex_;
    mutable std::set<std::string, std::less<>> unsupported_options_;
};

using MappedLibrary = std::shared_ptr<const PluginLibrary>;

// The process-wide mapping of `file` (rtld_now | rtld_local), mapping it if this is the first
// request for the file as it is on disk now. On failure returns null and sets `error` (the
// loader's "not loadable: ..." reason).
MappedLibrary map_plugin_library(const std::filesystem::path& file, std::string& error);

// How many times map_plugin_library has really called dlopen in this process (for tests).
std::size_t plugin_libraries_opened();

}  // namespace mcph::plugins
