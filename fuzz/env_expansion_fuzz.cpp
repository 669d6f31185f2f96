// ${VAR} / ${VAR:-default} expansion (host/src/config/env_expansion.*), fed a string from a
// server definition in a (possibly project-supplied) config file. Variables come from a fixed
// map, never the real environment. Checked: it returns or throws mcph::Error(Usage) — any other
// exception, a crash or a stack overflow is a finding — and text without "${" comes back as is.
#include "config/env_expansion.hpp"
#include "fuzz_support.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>

#include <map>

namespace {

std::optional<std::string> lookup(std::string_view name) {
    static const std::map<std::string, std::string, std::less<>> vars = {
        {"HOME", "/home/user"}, {"EMPTY", ""}, {"TOKEN", "s3cr3t"}, {"A", "${B}"}, {"B", "b"}, {"X_1", "}"}};
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = mcph::fuzz::as_text(data, size);
    try {
        const std::string out = mcph::config::expand_variables(text, lookup);
        if (text.find("${") == std::string_view::npos) MCPH_FUZZ_CHECK(out == text);
    } catch (const mcph::Error& e) {
        MCPH_FUZZ_CHECK(e.kind() == mcph::ErrorKind::Usage);
    }

    // The same text as a whole server entry, when it is one: every expanded field, named errors.
    mcph::Json entry;
    if (!mcph::json_bounds::parse(entry, text) || !entry.IsObject()) return 0;
    try {
        mcph::config::expand_server_entry(entry, entry.GetAllocator(), "fuzz", lookup);
    } catch (const mcph::Error& e) {
        MCPH_FUZZ_CHECK(e.kind() == mcph::ErrorKind::Usage);
        MCPH_FUZZ_CHECK(std::string_view(e.what()).starts_with("server 'fuzz': "));
    }
    return 0;
}
