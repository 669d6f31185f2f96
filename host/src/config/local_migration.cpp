#include "config/local_migration.hpp"

#include "config/atomic_write.hpp"
#include "config/file_trust.hpp"
#include "config/jsonc.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <unistd.h>

namespace mcph::config {

std::filesystem::path migrate_legacy_local_settings(const ConfigLocations& locations) {
    namespace fs = std::filesystem;
    const fs::path from = locations.legacy_local_settings_file();
    const fs::path to = locations.local_settings_file();
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(from, ec);
    if (!fs::exists(link)) throw Error(ErrorKind::NotFound, "nothing to migrate: " + from.string() + " does not exist");
    if (!fs::is_regular_file(link))
        throw Error(ErrorKind::Usage, from.string() + " is not a regular file (a symlink?); move its content to " +
                                          to.string() + " by hand if it is yours");
    if (!resolves_inside(from, locations.project_root))
        throw Error(ErrorKind::Usage, from.string() + " leads out of the project " + locations.project_root.string() +
                                          " (a symlinked folder?); refusing to move it");
    require_trusted(from, {Owner::CurrentUser, true});
    if (fs::exists(fs::symlink_status(to, ec)))
        throw Error(ErrorKind::Usage, to.string() + " exists already; merge " + from.string() +
                                          " into it by hand, then delete " + from.string());
    const std::optional<std::string> text = read_file_if_exists(from);
    if (!text) throw Error(ErrorKind::NotFound, "nothing to migrate: " + from.string() + " does not exist");
    Json doc;
    try {
        doc = parse_config_json(*text, from.string());  // moved verbatim, so its comments survive
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, std::string(e.what()) + " (fix it by hand first)");
    }
    if (!doc.IsObject()) throw Error(ErrorKind::Usage, from.string() + ": the file must hold a JSON object (fix it by hand first)");
    write_file_atomically(to, *text, 0600);
    if (::unlink(from.c_str()) != 0)
        throw Error(ErrorKind::Usage, "copied " + from.string() + " to " + to.string() + " but cannot delete it; delete it by hand");
    ::rmdir(from.parent_path().c_str());  // only succeeds when the .mcph folder is now empty
    return to;
}

}  // namespace mcph::config
