// subscriptions/listen (2026-07-28): the notification filter a client opts in to, and what the
// server acknowledged. The long-lived listen stream replaces the 2025 GET stream and
// resources/subscribe; every notification on it carries the listen request's id in
// _meta["io.modelcontextprotocol/subscriptionId"].
#pragma once

#include <mcph/json.hpp>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mcph::session {

struct ListenFilter {
    bool tools_list_changed = false;
    bool prompts_list_changed = false;
    bool resources_list_changed = false;
    std::set<std::string> resource_subscriptions;

    bool empty() const {
        return !tools_list_changed && !prompts_list_changed && !resources_list_changed && resource_subscriptions.empty();
    }
    Json to_json() const;
    // Reads an acknowledged filter; what is malformed counts as not granted.
    static ListenFilter from_json(const JsonValue& value);
};

// What to ask of a server: the list changes its capabilities say it sends (listChanged), and
// updates for the resources the application subscribed to (when it offers resources.subscribe).
ListenFilter wanted_filter(const JsonValue& server_capabilities, const std::set<std::string>& resource_uris);

// The requested notification types the acknowledgment left out, by their filter names.
std::vector<std::string> not_granted(const ListenFilter& asked, const ListenFilter& acknowledged);

// Notifications that flow on a listen stream (and must carry its subscription id there).
bool is_subscription_notification(const std::string& method);

// Whether params._meta names subscription `listen_id` (the listen request's JSON-RPC id).
bool names_subscription(const JsonValue& params, std::int64_t listen_id);

// How long to wait before listening again after the `failures`-th lost or unacknowledged stream:
// 1 s doubling to 60 s, so a server that keeps dropping it costs one request a minute.
std::chrono::milliseconds relisten_delay(int failures);

// How long a server may take to acknowledge a listen request before the stream is given up.
inline constexpr std::chrono::milliseconds kListenAckWait{10000};

}  // namespace mcph::session
