// mcph-bench --mapped SxT: what a call by mapped name costs through Host::call_tool when the host
// holds many tools — S fake-mcp-servers listing T tools each, every server approved so that its
// tools are pinned and the rug-pull guard judges every call — next to ClientSession::call_tool on
// the same servers and tools (the difference is the host's name resolution and guard).
#pragma once

#include <string>

namespace bench {

struct MappedConfig {
    std::string fake_server;  // tests/fakes' fake-mcp-server (serves --tools-file)
    int servers = 1, tools = 500;
    int calls = 20000, warmup = 1000;
};

// Prints one JSON object (mapped_* keys, README.md); throws on any failed call.
int run_mapped(const MappedConfig& c);

}  // namespace bench
