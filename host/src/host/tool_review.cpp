// The rug-pull guard over tools: scan, pins, withhold policy, mapped names — built once per change
// of its inputs and served from a snapshot (tool_review.hpp says which inputs and how a change is
// seen).
#include "governance/tool_pins.hpp"
#include "governance/tool_scanner.hpp"
#include "host/host_impl.hpp"
#include "tools/name_mapping.hpp"


namespace mcph {

// One server as a review reads it. At namespace scope, not inside Host::Impl: Impl is a private
// member of Host, which the free functions below may not name.
namespace detail {
struct ReviewedServer {
    std::string name;
    bool live = false;
    std::vector<Tool> tools;
};
}  // namespace detail

// What a review reads: the servers' tools, their pins, and whether the policy withholds flagged
// tools.
struct Host::Impl::ReviewInputs {
    using Server = detail::ReviewedServer;
    std::vector<Server> servers;
    std::map<std::string, config::Pins> pins;
    bool withhold_flagged = false;
};

namespace {

using Inputs = std::vector<detail::ReviewedServer>;

// Every tool of `context` outside server `name`: what `name`'s tools could shadow.
std::vector<Tool> foreign_tools(const std::string& name, const Inputs& context) {
    std::vector<Tool> out;
    for (const auto& server : context)
        if (server.name != name) out.insert(out.end(), server.tools.begin(), server.tools.end());
    return out;
}

// The scanner policy: a flagged tool joins the withheld ones, through the same path as a changed one.
void withhold_flagged(ServerToolReview& review) {
    std::vector<Tool> kept;
    for (Tool& tool : review.allowed) {
        if (tool.findings.empty()) {
            kept.push_back(std::move(tool));
            continue;
        }
        review.withheld.push_back(
            WithheldTool{tool.name, "flagged by the tool scanner", WithheldTool::Why::Flagged, tool.findings});
    }
    review.allowed = std::move(kept);
}

// One server's tools: scanned against `foreign`, compared with its pins (none: never approved,
// nothing to compare with), the policy applied.
ServerToolReview review_server(const std::vector<Tool>& tools, const std::vector<Tool>& foreign,
                               const config::Pins* pins, bool withhold_on) {
    ServerToolReview out;
    out.scanned = tools;
    const governance::ScanContext context = governance::foreign_context(out.scanned, foreign);
    for (Tool& tool : out.scanned) tool.findings = governance::scan_tool(governance::tool_text(tool), context);
    if (!pins) {
        out.allowed = out.scanned;
    } else {
        auto review = governance::review_tools(out.scanned, pins->tools);
        out.allowed = std::move(review.allowed);
        for (const auto& w : review.withheld) {
            const bool changed = w.reason == governance::WithheldTool::Reason::Changed;
            out.withheld.push_back(WithheldTool{w.tool.name, changed ? "changed since approval" : "new since approval",
                                                changed ? WithheldTool::Why::Changed : WithheldTool::Why::New,
                                                w.tool.findings});
        }
    }
    if (withhold_on) withhold_flagged(out);
    out.index();
    return out;
}

}  // namespace

void ServerToolReview::index() {
    allowed_names.clear();
    withheld_index.clear();
    allowed_names.reserve(allowed.size());
    for (const Tool& tool : allowed) allowed_names.insert(tool.name);
    for (std::size_t i = 0; i < withheld.size(); ++i) withheld_index.emplace(withheld[i].name, i);
}

const WithheldTool* ServerToolReview::withheld_tool(const std::string& name) const {
    auto it = withheld_index.find(name);
    return it == withheld_index.end() ? nullptr : &withheld[it->second];
}

Host::Impl::ReviewInputs Host::Impl::review_inputs(
    const std::vector<std::shared_ptr<connection::ServerConnection>>& servers) const {
    ReviewInputs in;
    {
        std::lock_guard lock(mutex);
        in.pins = pins;
        in.withhold_flagged = options.withhold_flagged_tools || policy.withhold_flagged_tools;
    }
    for (const auto& connection : servers) {
        ReviewInputs::Server s;
        s.name = connection->name();
        if (auto core = connection->live_core()) {
            s.live = true;
            s.tools = core->cached_tools();
        }
        in.servers.push_back(std::move(s));
    }
    return in;
}

namespace {

// The allowed tools of `reviewed` under mapped names into `out`; a mapped name already taken is
// refused (logged), so one name never means two tools.
template <class Log>
void add_mapped(ToolReviewSnapshot& out, const std::string& server, const ServerToolReview& reviewed,
                std::map<std::string, std::string>& owner, const Log& log) {
    for (Tool tool : reviewed.allowed) {
        tool.mapped_name = tools::map_tool_name(tool.server, tool.name);
        auto [it, fresh] = owner.emplace(tool.mapped_name, tool.server + "/" + tool.name);
        if (!fresh) {
            log(tool.server, "tool '" + tool.name + "' maps to '" + tool.mapped_name + "', already used by " + it->second +
                                 "; it is withheld");
            continue;
        }
        out.by_mapped.emplace(tool.mapped_name, std::make_pair(server, tool.name));
        out.mapped.push_back(std::move(tool));
    }
}

}  // namespace

std::shared_ptr<const ToolReviewSnapshot> Host::Impl::build_tool_review() const {
    auto out = std::make_shared<ToolReviewSnapshot>();
    // Read before any input: a change made while the inputs are read moves the counter past it.
    out->generation = review_generation->load(std::memory_order_acquire);
    std::vector<std::shared_ptr<connection::ServerConnection>> table;
    {
        std::lock_guard lock(mutex);
        for (const auto& name : order)
            if (auto it = connections.find(name); it != connections.end()) table.push_back(it->second);
    }
    const ReviewInputs in = review_inputs(table);
    std::map<std::string, std::string> owner;
    auto log = [this](const std::string& server, const std::string& message) { options.logger(LogLevel::Error, server, message); };
    for (const auto& server : in.servers) {
        if (!server.live) continue;
        auto pin = in.pins.find(server.name);
        ServerToolReview reviewed = review_server(server.tools, foreign_tools(server.name, in.servers),
                                                  pin == in.pins.end() ? nullptr : &pin->second, in.withhold_flagged);
        add_mapped(*out, server.name, reviewed, owner, log);
        for (const auto& w : reviewed.withheld)
            out->withheld_by_mapped.emplace(tools::map_tool_name(server.name, w.name), server.name);
        out->servers.emplace(server.name, std::move(reviewed));
    }
    return out;
}

// Whether nothing the snapshot was built from has changed since: the counter every input bumps
// still reads what it read before the build.
bool Host::Impl::review_is_current(const ToolReviewSnapshot& snapshot) const {
    return snapshot.generation == review_generation->load(std::memory_order_acquire);
}

std::shared_ptr<const ToolReviewSnapshot> Host::Impl::tool_review() const {
    std::shared_ptr<const ToolReviewSnapshot> cached;
    {
        std::lock_guard lock(review_mutex);
        cached = review_cache;
    }
    if (cached && review_is_current(*cached)) return cached;
    // Built outside every lock. Two threads may both build after one change; either result is
    // right for its moment, the newer one is kept, and it is checked again at its next use.
    std::shared_ptr<const ToolReviewSnapshot> fresh = build_tool_review();
    std::lock_guard lock(review_mutex);
    if (!review_cache || review_cache->generation <= fresh->generation) review_cache = fresh;
    return fresh;
}

std::vector<Tool> Host::Impl::mapped_tools(const std::vector<std::shared_ptr<connection::ServerConnection>>& live) const {
    std::vector<std::shared_ptr<connection::ServerConnection>> table;
    {
        std::lock_guard lock(mutex);
        for (const auto& [name, connection] : connections) table.push_back(connection);
    }
    const ReviewInputs in = review_inputs(live);
    const ReviewInputs context = review_inputs(table);
    ToolReviewSnapshot out;
    std::map<std::string, std::string> owner;
    auto log = [this](const std::string& server, const std::string& message) { options.logger(LogLevel::Error, server, message); };
    for (const auto& server : in.servers) {
        if (!server.live) continue;
        auto pin = in.pins.find(server.name);
        add_mapped(out, server.name,
                   review_server(server.tools, foreign_tools(server.name, context.servers),
                                 pin == in.pins.end() ? nullptr : &pin->second, in.withhold_flagged),
                   owner, log);
    }
    return std::move(out.mapped);
}

}  // namespace mcph
