// The fake server's options that combine with any --mode: a tools list read from a file, a slow
// or crashing initialize, server instructions, and a trace of process start / handshake times.
#pragma once

#include <optional>
#include <string>

namespace fake {

struct Options {
    std::string tools_file;                   // --tools-file: tools/list answers this file's array
    int init_delay_ms = 0;                    // --init-delay-ms: sleep before answering initialize
    std::string trace_path;                   // --trace: "start|ready <pid> <monotonic ms>" lines
    std::optional<int> exit_after_init_ms;    // --exit-after-init-ms: exit(4) this long after initialize
    std::optional<std::string> instructions;  // --instructions: initialize result.instructions
    std::string text_file;                    // --text-file: tools/call sends these bytes everywhere it can
    std::string instructions_file;            // --instructions-file: the same, read at each initialize
    std::string prompts_file;                 // --prompts-file: prompts/list answers this file's array
    std::string skills_file;                  // --skills-file: the skills extension (skills/list, resources/read)
    std::string elicit_file;                  // --elicit-file: tools/call asks elicitation/create with these params
    int elicit_delay_ms = 0;                  // --elicit-delay-ms: sleep (reading nothing) before asking it
    int flood_updates = 100'000;              // --updates: how many updates mode update-flood sends
};

// Appends "<event> <pid> <CLOCK_MONOTONIC ms>\n" to the trace file with a single write() on an
// O_APPEND descriptor, so lines from many concurrent servers never interleave. No-op without a path.
class Trace {
public:
    explicit Trace(const std::string& path);
    ~Trace();
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;

    void event(const char* name);

private:
    int fd_ = -1;
};

// CLOCK_MONOTONIC in milliseconds (system-wide on Linux: comparable across processes).
long long monotonic_ms();

}  // namespace fake
