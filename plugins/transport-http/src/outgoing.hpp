// What the I/O thread must know about one outgoing message: the requests it carries (so a failed
// POST is answered instead of hanging) and the requests a notifications/cancelled gives up on.
#pragma once

#include "mailbox.hpp"

#include <mcph/plugin_helper.hpp>

#include <string_view>

namespace mcph::http {

// The Send command for `message`, validated. With the host's facts (send_ex; `facts` not null
// and naming a method) the ids come from them and the body is not scanned: the host built the
// message and already knows them (issue #16, one parse per direction). Without facts, or for a
// message the facts cannot describe (a response, which names no method; notifications/cancelled,
// whose params.requestId the facts do not carry), one scan of the body (inspect_message).
// Throws mcph::plugin::Error (MCPH_ERR_INVALID_ARGUMENT) for a message that is too large or not a
// JSON-RPC object or array.
Command outgoing_command(std::string_view message, const mcph::plugin::MessageFacts* facts, size_t max_message_bytes);

// facts.id (JSON text) in the canonical spelling inspect_message gives response ids, so the
// response is matched to it; empty when it is not a JSON string or number.
std::string canonical_request_id(std::string_view id_json);

}  // namespace mcph::http
