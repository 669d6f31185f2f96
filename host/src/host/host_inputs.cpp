// Host::kept_inputs / forget_inputs: the input answers the host keeps in the
// secret store (config/kept_inputs.hpp), listed and forgotten without their values.
#include "config/kept_inputs.hpp"
#include "host/host_impl.hpp"

namespace mcph {
namespace {

std::vector<KeptInput> public_view(const std::vector<config::KeptAnswer>& answers) {
    std::vector<KeptInput> out;
    out.reserve(answers.size());
    for (const config::KeptAnswer& a : answers) out.push_back({a.file, a.origin, a.id, a.description, a.password});
    return out;
}

}  // namespace

std::vector<KeptInput> Host::kept_inputs() const { return public_view(impl_->kept_inputs().list()); }

std::vector<KeptInput> Host::forget_inputs(const std::string& id, const std::filesystem::path& file) {
    if (id.empty() && file.empty()) return public_view(impl_->kept_inputs().forget({}));
    const std::string place = file.empty() ? std::string() : config::canonical_input_place(file);
    return public_view(impl_->kept_inputs().forget([&](const config::KeptAnswer& a) {
        return (id.empty() || a.id == id) && (place.empty() || a.file == place);
    }));
}

}  // namespace mcph
