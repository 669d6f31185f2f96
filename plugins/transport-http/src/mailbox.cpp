#include "mailbox.hpp"

namespace mcph::http {

bool Mailbox::push(Command command) {
    std::lock_guard lock(mutex_);
    size_t size = command.payload.size();
    if (queue_.size() >= max_commands_ || (bytes_ + size > max_bytes_ && !queue_.empty())) return false;
    bytes_ += size;
    queue_.push_back(std::move(command));
    return true;
}

std::vector<Command> Mailbox::take_all() {
    std::vector<Command> out;
    std::lock_guard lock(mutex_);
    out.swap(queue_);
    bytes_ = 0;
    return out;
}

}  // namespace mcph::http
