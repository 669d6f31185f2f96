// Grows a pipe's kernel buffer when messages are larger than it, within a process-wide budget.
//
// A pipe holds 64 KiB by default. A 1 MiB message then crosses it in 16 pieces: the writer blocks
// (for us: the rest is queued and handed to the writer thread, a copy and a wake-up per message)
// and the reader wakes 16 times. With the pipe grown to the message's size (F_SETPIPE_SZ) the
// message goes in one write and comes out in one or two reads (issue #16: stdio 1 MiB echo).
//
// Only pipes that carry large messages grow, never past the system's unprivileged maximum
// (/proc/sys/fs/pipe-max-size, 1 MiB by default), and all of a process's grown pipes together stay
// within kBudgetBytes: the kernel charges pipe buffers to the user (pipe-user-pages-soft, 64 MiB by
// default), and a user past that limit gets tiny pipes for *every* new pipe, ours and other
// programs' alike. A pipe that cannot grow works as before.
#pragma once

#include <cstddef>

namespace mcph::stdio {

class PipeGrowth {
public:
    static constexpr size_t kBudgetBytes = size_t{16} << 20;  // a quarter of the default soft limit

    PipeGrowth() = default;
    PipeGrowth(const PipeGrowth&) = delete;
    PipeGrowth& operator=(const PipeGrowth&) = delete;
    ~PipeGrowth();  // gives back to the budget what this pipe took

    // Makes the pipe behind `fd` hold at least `bytes` when the system and the budget allow (else
    // as much as they allow). Cheap when nothing changes: the size is remembered.
    void ensure(int fd, size_t bytes) noexcept;
    size_t size() const noexcept { return size_; }

private:
    size_t size_ = 0;   // the pipe's buffer size as last set or read (0: not read yet)
    size_t taken_ = 0;  // bytes above the default size taken from the budget
    bool at_limit_ = false;  // the system or the budget refused more: do not ask again
};

}  // namespace mcph::stdio
