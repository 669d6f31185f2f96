#include "extensions/agent_catalog.hpp"

#include "config/file_read.hpp"

#include <mcph/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mcph::extensions {
namespace {

namespace fs = std::filesystem;

// Who may have written each kind of agent file (as layered_config.cpp's config files).
constexpr config::TrustRule kAdminFile{config::Owner::CurrentUserOrRoot, true};
constexpr config::TrustRule kPrivateFile{config::Owner::CurrentUser, false};
constexpr config::TrustRule kRepositoryFile{config::Owner::CurrentUser, true};
constexpr config::TrustRule kPluginFile{config::Owner::CurrentUserOrRoot, true};

// The folders from the repository root down to cwd, farthest first (ConfigLocations::project_files'
// walk); only cwd when cwd is not inside the root.
std::vector<fs::path> project_dirs(const config::ConfigLocations& locations) {
    const fs::path below = locations.cwd.lexically_relative(locations.project_root);
    if (below.empty() || *below.begin() == "..") return {locations.cwd};
    std::vector<fs::path> out{locations.project_root};
    fs::path dir = locations.project_root;
    for (const fs::path& part : below) {
        if (part == ".") continue;
        dir /= part;
        out.push_back(dir);
    }
    return out;
}

// The *.md files directly in `dir`, sorted; a listing problem or too many files is reported.
std::vector<fs::path> agent_files_in(const fs::path& dir, std::vector<AgentProblem>& problems) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code type_ec;  // one unreadable entry must not end the listing
        if (name.size() <= 3 || !name.ends_with(".md") || name[0] == '.' || it->is_directory(type_ec)) continue;
        if (files.size() == kMaxAgentFiles) {
            problems.push_back({dir.string(), 0, "more than " + std::to_string(kMaxAgentFiles) +
                                                     " agent files; the rest of the folder is not read"});
            break;
        }
        files.push_back(it->path());
    }
    if (ec) problems.push_back({dir.string(), 0, "cannot list the folder: " + ec.message()});
    std::sort(files.begin(), files.end());  // a stable order whatever the directory order is
    return files;
}

// The definitions in effect, by name, with what each replaced.
class Table {
public:
    void put(AgentDefinition agent) {
        auto it = index_.find(agent.name);
        if (it == index_.end()) {
            index_.emplace(agent.name, agents_.size());
            agents_.push_back(std::move(agent));
            return;
        }
        AgentDefinition& old = agents_[it->second];
        agent.shadows = std::move(old.shadows);
        agent.shadows.push_back(old.origin);
        old = std::move(agent);
    }
    std::vector<AgentDefinition> take() { return std::move(agents_); }

private:
    std::vector<AgentDefinition> agents_;
    std::map<std::string, std::size_t> index_;
};

// Whether the user approved exactly this content of a project agent file.
void judge_approval(AgentDefinition& agent, const std::string& content, const config::ApprovalStore* approvals,
                    const std::string& project_root) {
    const std::string approve = "`mcph approve --agent " + agent.name + "`";
    agent.approved = false;
    if (!approvals) {
        agent.unapproved_reason = "project agent files need your approval: review " + agent.origin + " and run " + approve;
        return;
    }
    std::optional<config::Approval> found;
    try {
        found = approvals->find(config::agent_file_approval_key(agent.origin, project_root, agent.name));
    } catch (const Error& e) {
        agent.unapproved_reason = std::string("approvals cannot be read: ") + e.what();
        return;
    }
    if (!found) {
        agent.unapproved_reason = "project agent files need your approval before they are used: review " + agent.origin +
                                  " and run " + approve;
        return;
    }
    if (found->signature != config::agent_file_signature(content)) {
        agent.unapproved_reason = agent.origin + " changed since you approved it: review it and run " + approve;
        return;
    }
    agent.approved = true;
}

}  // namespace

std::vector<AgentFolder> agent_folders(const config::ConfigLocations& locations) {
    std::vector<AgentFolder> out;
    for (const fs::path& plugin_dir : locations.plugin_dirs) {
        std::error_code ec;
        const fs::path agents = plugin_dir / "agents";
        if (!fs::is_directory(agents, ec)) continue;
        std::vector<fs::path> plugins;
        for (fs::directory_iterator it(agents, ec), end; !ec && it != end && plugins.size() < kMaxAgentFiles; it.increment(ec)) {
            std::error_code type_ec;
            if (it->is_directory(type_ec)) plugins.push_back(it->path());
        }
        std::sort(plugins.begin(), plugins.end());
        for (const fs::path& p : plugins) out.push_back({p, AgentSource::Plugin, p.filename().string(), kPluginFile, {}, {}});
    }
    AgentFolder user{locations.config_home / "agents", AgentSource::User, "", kPrivateFile, {}, {}};
    std::error_code ec;
    // A config home others can write is no more the user's than a repository is (layered_config.hpp).
    if (fs::exists(locations.config_home, ec)) user.distrust = config::distrust_reason(locations.config_home, kPrivateFile);
    if (!user.distrust && fs::exists(user.dir, ec)) user.distrust = config::distrust_reason(user.dir, kPrivateFile);
    out.push_back(std::move(user));
    for (const fs::path& dir : project_dirs(locations)) {
        // .mcph after .claude: in one folder, the mcph-specific file wins.
        out.push_back({dir / ".claude" / "agents", AgentSource::Project, "", kRepositoryFile, locations.project_root, {}});
        out.push_back({dir / ".mcph" / "agents", AgentSource::Project, "", kRepositoryFile, locations.project_root, {}});
    }
    out.push_back({locations.managed_dir / "agents", AgentSource::Policy, "", kAdminFile, {}, {}});
    return out;
}

// Opened first, then judged by fstat of what was opened (no swap between check and read); O_NONBLOCK
// so a planted FIFO cannot hang us. read_trusted_file does the same with the 16 MiB config bound; an
// agent file has its own, smaller one.
std::string read_agent_file(const fs::path& file, const AgentFolder& folder, const AgentFileLimits& limits) {
    if (folder.distrust) throw Error(ErrorKind::Usage, *folder.distrust + " (so " + file.string() + " is not used)");
    if (!folder.confined_to.empty() && !config::resolves_inside(file, folder.confined_to))
        throw Error(ErrorKind::Usage, file.string() + " is a symlink leading out of the project " + folder.confined_to.string() +
                                          "; refusing to read it (a repository's files must not make mcph read yours)");
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(ErrorKind::Usage, "cannot read " + file.string() + ": " + std::strerror(errno));
    struct stat st {};
    std::optional<std::string> why;
    if (::fstat(fd, &st) != 0) why = "cannot inspect " + file.string() + ": " + std::strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "cannot read " + file.string() + ": it is not a regular file";
    else why = config::distrust_reason(file, st, folder.rule);
    if (why) {
        ::close(fd);
        throw Error(ErrorKind::Usage, *why);
    }
    return config::read_to_end_and_close(fd, file, limits.max_file_bytes);
}

AgentCatalog load_agent_catalog(const std::vector<AgentFolder>& folders, const std::vector<AgentDefinition>& builtins,
                                const config::ApprovalStore* approvals, const std::string& project_root,
                                const AgentFileLimits& limits) {
    AgentCatalog out;
    Table table;
    for (AgentDefinition agent : builtins) {
        agent.source = AgentSource::BuiltIn;
        agent.approved = true;
        table.put(std::move(agent));
    }
    for (const AgentFolder& folder : folders) {
        for (const fs::path& file : agent_files_in(folder.dir, out.problems)) {
            std::string text;
            try {
                text = read_agent_file(file, folder, limits);
            } catch (const Error& e) {
                out.problems.push_back({file.string(), 0, e.what()});
                continue;
            }
            AgentFileResult parsed = parse_agent_file(text, file.string(), limits);
            if (!parsed.agent) {
                out.problems.push_back({file.string(), parsed.line, parsed.error});
                continue;
            }
            AgentDefinition agent = std::move(*parsed.agent);
            agent.source = folder.source;
            agent.origin = file.string();
            agent.plugin_source = folder.plugin;
            if (folder.source == AgentSource::Project) judge_approval(agent, text, approvals, project_root);
            table.put(std::move(agent));
        }
    }
    out.agents = table.take();
    return out;
}

}  // namespace mcph::extensions
