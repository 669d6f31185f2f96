#include "mailbox.hpp"

namespace mcph::http {

Ticket& Ticket::operator=(Ticket&& o) noexcept {
    if (this != &o) {
        release();
        box_ = o.box_;
        bytes_ = o.bytes_;
        o.box_ = nullptr;
    }
    return *this;
}

void Ticket::release() noexcept {
    if (box_) box_->release(bytes_);
    box_ = nullptr;
}

bool Mailbox::push(Command command) {
    size_t size = command.payload.size();
    {
        std::lock_guard lock(mutex_);
        if (commands_ >= max_commands_ || (bytes_ + size > max_bytes_ && commands_ > 0)) return false;
        commands_ += 1;
        bytes_ += size;
        command.ticket = Ticket(this, size);  // (no ticket existed before: nothing released under the lock)
        queue_.push_back(std::move(command));
    }
    return true;
}

void Mailbox::push_control(Command command) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(command));
}

std::vector<Command> Mailbox::take_all() {
    std::vector<Command> out;
    std::lock_guard lock(mutex_);
    out.swap(queue_);
    return out;
}

bool Mailbox::empty() const {
    std::lock_guard lock(mutex_);
    return queue_.empty();
}

void Mailbox::release(size_t bytes) noexcept {
    std::lock_guard lock(mutex_);
    commands_ -= 1;
    bytes_ -= bytes;
}

}  // namespace mcph::http
