#include "config/config_roots.hpp"

#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <algorithm>

namespace mcph::config {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void bad_root(const std::string& where, const std::string& entry, const std::string& problem) {
    throw Error(ErrorKind::Usage, where + "roots: \"" + entry + "\" " + problem);
}

// "~" and "~/rest" are the home directory, as a shell (and server-filesystem) reads them; "~user"
// is not expanded (a path named so is taken literally, like any other relative path).
fs::path with_home(const std::string& entry, const VariableLookup& lookup, const std::string& where) {
    if (entry != "~" && entry.rfind("~/", 0) != 0) return fs::path(entry);
    const std::optional<std::string> home = lookup("HOME");
    if (!home || home->empty()) bad_root(where, entry, "needs the home directory, and HOME is not set");
    return fs::path(*home) / entry.substr(std::min<std::size_t>(entry.size(), 2));
}

bool inside_folder(const fs::path& real, const fs::path& real_folder) {
    const fs::path below = real.lexically_relative(real_folder);
    return !below.empty() && *below.begin() != "..";
}

}  // namespace

std::optional<std::vector<std::string>> roots_member(const JsonValue& holder, const std::string& where) {
    const JsonValue* list = json::member(holder, "roots");
    if (!list) return std::nullopt;
    const std::string shape = where + "roots must be an array of directory paths (non-empty strings)";
    if (!list->IsArray()) throw Error(ErrorKind::Usage, shape);
    if (list->Size() > kMaxRoots)
        throw Error(ErrorKind::Usage, where + "roots has " + std::to_string(list->Size()) + " entries, more than the " +
                                          std::to_string(kMaxRoots) + " a list may have");
    std::vector<std::string> out;
    for (const JsonValue& item : list->GetArray()) {
        if (!item.IsString() || item.GetStringLength() == 0) throw Error(ErrorKind::Usage, shape);
        out.emplace_back(json::view(item));
    }
    return out;
}

std::vector<fs::path> resolve_roots(const std::vector<std::string>& written, const fs::path& base, const fs::path& confined_to,
                                    const VariableLookup& lookup, const std::string& where) {
    std::error_code ec;
    fs::path real_folder;
    if (!confined_to.empty()) {
        real_folder = fs::canonical(confined_to, ec);
        if (ec) throw Error(ErrorKind::Usage, where + "roots: the project folder " + confined_to.string() + " cannot be resolved: " + ec.message());
    }
    std::vector<fs::path> out;
    for (const std::string& entry : written) {
        if (entry.find('\0') != std::string::npos) bad_root(where, entry, "contains a NUL byte");
        fs::path path = with_home(entry, lookup, where);
        if (path.is_relative()) path = (base.empty() ? fs::current_path(ec) : base) / path;
        const fs::path real = fs::canonical(path, ec);
        if (ec) bad_root(where, entry, "(" + path.string() + ") cannot be used: " + ec.message());
        if (!fs::is_directory(real, ec)) bad_root(where, entry, "(" + real.string() + ") is not a directory");
        if (!real_folder.empty() && !inside_folder(real, real_folder))
            bad_root(where, entry, "resolves to " + real.string() + ", outside the project " + real_folder.string() +
                                       " (a repository's file may offer a server only folders inside the repository)");
        if (std::find(out.begin(), out.end(), real) == out.end()) out.push_back(real);
    }
    return out;
}

}  // namespace mcph::config
