#include "shell_events.hpp"

#include <unistd.h>

#include <deque>
#include <iostream>
#include <mutex>

namespace mcph::cli {
namespace {

struct Console {
    std::mutex mutex;
    int wake_fd = -1;  // >= 0 while the editor waits
    std::deque<std::string> queued;
    std::size_t dropped = 0;
};

Console& console() {
    static Console c;
    return c;
}

}  // namespace

void print_console_line(const std::string& line) {
    Console& c = console();
    std::lock_guard lock(c.mutex);
    if (c.wake_fd < 0) {
        std::cerr << line << "\n" << std::flush;
        return;
    }
    if (c.queued.size() >= kMaxQueuedConsoleLines) {
        c.queued.pop_front();
        ++c.dropped;
    }
    const bool was_empty = c.queued.empty();
    c.queued.push_back(line);
    if (was_empty) (void)!::write(c.wake_fd, "l", 1);  // one wake-up per batch; a full pipe is fine
}

void console_attach(int wake_fd) {
    std::lock_guard lock(console().mutex);
    console().wake_fd = wake_fd;
}

void console_detach() {
    {
        std::lock_guard lock(console().mutex);
        console().wake_fd = -1;
    }
    for (const auto& line : console_take()) std::cerr << line << "\n";
    std::cerr << std::flush;
}

std::vector<std::string> console_take() {
    Console& c = console();
    std::lock_guard lock(c.mutex);
    std::vector<std::string> out(c.queued.begin(), c.queued.end());
    c.queued.clear();
    if (c.dropped) out.push_back("mcph: (" + std::to_string(c.dropped) + " lines dropped: more than " +
                                 std::to_string(kMaxQueuedConsoleLines) + " arrived while waiting at the prompt)");
    c.dropped = 0;
    return out;
}

}  // namespace mcph::cli
