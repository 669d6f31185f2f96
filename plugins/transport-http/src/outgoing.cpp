#include "outgoing.hpp"

#include "jsonrpc_shape.hpp"
#include "spare_strings.hpp"

#include <algorithm>

namespace mcph::http {
namespace {

using mcph::plugin::Error;

// `7`, `-12`: what the host writes for its own numeric ids, already canonical (no sign on 0, no
// leading zero, small enough to be an integer for the parser).
bool is_plain_integer(std::string_view s) {
    std::string_view digits = !s.empty() && s[0] == '-' ? s.substr(1) : s;
    if (digits.empty() || digits.size() > 18) return false;
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    if (digits[0] == '0') return digits.size() == 1 && digits.size() == s.size();  // "0", never "-0" or "01"
    return true;
}

// The transfer's own copy of the message (the host's is borrowed for the call only), in a kept
// body's memory when the message is large and one is spare.
std::string body_copy(std::string_view message) {
    std::string body = SpareStrings::shared().take(message.size());
    body.assign(message);
    return body;
}

Command scanned_command(std::string_view message) {
    MessageShape shape = inspect_message(message);
    if (!shape.valid) throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message is not a JSON object or array");
    Command c = Command::of(Command::Kind::Send, body_copy(message));
    c.request_ids = std::move(shape.request_ids);
    c.cancelled_ids = std::move(shape.cancelled_ids);
    return c;
}

}  // namespace

std::string canonical_request_id(std::string_view id_json) {
    if (is_plain_integer(id_json)) return std::string(id_json);
    // Rare (string ids, odd numbers): the scanner's own spelling, from a tiny message.
    MessageShape shape = inspect_message(R"({"method":"m","id":)" + std::string(id_json) + "}");
    if (!shape.valid || shape.request_ids.size() != 1) return {};
    return std::move(shape.request_ids.front());
}

Command outgoing_command(std::string_view message, const mcph::plugin::MessageFacts* facts, size_t max_message_bytes) {
    if (message.size() > max_message_bytes)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message is larger than maxMessageBytes");
    if (!facts || facts->method.empty() || facts->method == "notifications/cancelled") return scanned_command(message);
    Command c = Command::of(Command::Kind::Send, body_copy(message));
    if (!facts->id.empty()) {
        std::string id = canonical_request_id(facts->id);
        if (id.empty()) return scanned_command(message);  // facts we cannot use: learn from the body
        c.request_ids.push_back(std::move(id));
    }
    return c;
}

}  // namespace mcph::http
