// The tool-poisoning scanner (host/src/governance/tool_scanner.*, text_scanner.*), fed a tool
// definition as a server sends it: the input is split at 0x1F bytes into name, title, description,
// input schema, output schema and annotations (the schemas as JSON text), and is also scanned
// whole as server instructions. Checked: the findings per tool stay within kMaxFindingsPerTool,
// every finding points inside the string it names, and every excerpt is terminal-safe text (no
// control characters a terminal would act on).
#include "fuzz_support.hpp"
#include "governance/tool_scanner.hpp"

#include <array>

namespace {

void check(const std::vector<mcph::Finding>& findings, size_t input_size) {
    for (const mcph::Finding& f : findings) {
        MCPH_FUZZ_CHECK(f.offset <= input_size);
        for (unsigned char c : f.excerpt) MCPH_FUZZ_CHECK(c >= 0x20 && c != 0x7F);
        MCPH_FUZZ_CHECK(!mcph::describe(f).empty());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = mcph::fuzz::as_text(data, size);
    std::array<std::string_view, 6> fields{};
    size_t start = 0;
    for (size_t i = 0; i < fields.size() && start <= text.size(); ++i) {
        const size_t end = i + 1 == fields.size() ? std::string_view::npos : text.find('\x1f', start);
        fields[i] = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    mcph::governance::ToolText tool{fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]};
    mcph::governance::ScanContext context;
    context.foreign_names = {"send_email", "mcp__mail__send_email", "mail/send_email"};

    const auto findings = mcph::governance::scan_tool(tool, context);
    MCPH_FUZZ_CHECK(findings.size() <= mcph::governance::kMaxFindingsPerTool);
    check(findings, size);
    check(mcph::governance::scan_instructions(text, context), size);
    return 0;
}
