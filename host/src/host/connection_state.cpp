#include <mcph/connection_state.hpp>

namespace mcph {

std::string_view state_name(const ConnectionState& state) {
    struct Namer {
        std::string_view operator()(const state::Pending&) const { return "pending"; }
        std::string_view operator()(const state::Connected&) const { return "connected"; }
        std::string_view operator()(const state::Failed&) const { return "failed"; }
        std::string_view operator()(const state::NeedsAuth&) const { return "needs-auth"; }
        std::string_view operator()(const state::Disabled&) const { return "disabled"; }
    };
    return std::visit(Namer{}, state);
}

}  // namespace mcph
