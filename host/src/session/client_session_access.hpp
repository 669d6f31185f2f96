// How the host makes the public mcph::ClientSession around its SessionCore, and (for in-tree
// tests linking mcph_internal) reaches the core behind one. The constructor is private, so an
// embedder never sees a detail:: type in a call it can make; this struct is its only friend.
#pragma once

#include "session/session_core.hpp"

#include <mcph/session.hpp>

#include <memory>

namespace mcph::detail {

struct ClientSessionAccess {
    static std::shared_ptr<ClientSession> make(std::shared_ptr<SessionCore> core) {
        return std::shared_ptr<ClientSession>(new ClientSession(std::move(core)));
    }
    static const SessionCore& core(const ClientSession& session) { return *session.core_; }
};

// A session for the live core: what Host::connect, Host::session and Overlay::session return.
inline std::shared_ptr<ClientSession> make_client_session(std::shared_ptr<SessionCore> core) {
    return ClientSessionAccess::make(std::move(core));
}

}  // namespace mcph::detail
