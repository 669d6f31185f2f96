#include "shell_startup.hpp"

#include "shell_editor.hpp"
#include "shell_events.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <iostream>
#include <variant>

namespace mcph::cli {
namespace {

std::string quoted_name(const std::string& server) { return "'" + terminal_safe(server, LineBreaks::Escape) + "'"; }

// The line that reports how a start-up attempt ended; empty while it has not.
std::string outcome_line(const std::string& server, const ConnectionState& state) {
    const std::string who = "mcph: server " + quoted_name(server);
    if (std::holds_alternative<state::Connected>(state)) return who + " connected";
    if (auto* f = std::get_if<state::Failed>(&state)) return who + " failed: " + terminal_safe(f->error, LineBreaks::Escape);
    if (auto* n = std::get_if<state::NeedsAuth>(&state))
        return who + " needs sign-in (`login " + terminal_safe(server, LineBreaks::Escape) +
               "`): " + terminal_safe(n->reason, LineBreaks::Escape);
    if (auto* d = std::get_if<state::Disabled>(&state)) return who + " is disabled: " + terminal_safe(d->reason, LineBreaks::Escape);
    return {};
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + terminal_safe(name, LineBreaks::Escape);
    return out;
}

}  // namespace

void StartupAnnouncer::on_state_change(const std::string& server, const ConnectionState& state) {
    const std::string line = outcome_line(server, state);
    std::lock_guard lock(mutex_);
    ended_[server] = !line.empty();
    if (line.empty() || !announcing_ || waiting_.erase(server) == 0) return;
    print_console_line(line);  // queued above the prompt, or printed at once while a command runs
}

std::vector<std::string> StartupAnnouncer::give_up_waiting(const std::vector<std::string>& attempted) {
    std::lock_guard lock(mutex_);
    announcing_ = true;
    for (const auto& server : attempted)
        if (auto it = ended_.find(server); it == ended_.end() || !it->second) waiting_.insert(server);
    return {waiting_.begin(), waiting_.end()};
}

void StartupAnnouncer::stop() {
    std::lock_guard lock(mutex_);
    announcing_ = false;
    waiting_.clear();
}

StartupConnect::StartupConnect(Host& host, std::shared_ptr<StartupAnnouncer> announcer)
    : host_(host), announcer_(std::move(announcer)) {
    // The servers connect_all() will try: not disabled, not connected already.
    for (const auto& name : host_.server_names())
        if (!std::holds_alternative<state::Disabled>(host_.state(name)) && !host_.session(name)) attempted_.push_back(name);
    thread_ = std::thread([this] {
        try {
            host_.connect_all();  // each failure is recorded in its server's state
        } catch (const std::exception& e) {
            print_console_line(std::string("mcph: connecting the servers failed: ") + terminal_safe(e.what(), LineBreaks::Escape));
        }
        std::lock_guard lock(mutex_);
        done_ = true;
        done_cv_.notify_all();
    });
}

StartupConnect::~StartupConnect() {
    bool done = false;
    {
        std::lock_guard lock(mutex_);
        done = done_;
    }
    if (!done) {
        // The shell ends while servers still connect: their attempts are ended (a handshake in
        // progress fails at once; one not begun finds its connection shut down), so the join
        // below does not wait out a hanging server's connect timeout.
        announcer_->stop();
        for (const auto& name : still_connecting()) {
            try {
                host_.disconnect(name);
            } catch (const std::exception&) {
                // not configured any more: nothing of it to end
            }
        }
    }
    thread_.join();
}

std::vector<std::string> StartupConnect::still_connecting() const {
    std::vector<std::string> out;
    for (const auto& name : attempted_) {
        try {
            if (std::holds_alternative<state::Pending>(host_.state(name))) out.push_back(name);
        } catch (const std::exception&) {
        }
    }
    return out;
}

void StartupConnect::wait() {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [this] { return done_; });
}

std::vector<std::string> StartupConnect::wait_at_terminal() {
    const auto notice_at = std::chrono::steady_clock::now() + kStartupNoticeDelay;
    bool noticed = false;
    std::unique_lock lock(mutex_);
    for (;;) {
        // Ctrl-C sets a flag (the editor's SIGINT handler): looked at every 50 ms while waiting.
        if (done_cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; })) return {};
        if (LineEditor::take_interrupt()) break;
        if (!noticed && std::chrono::steady_clock::now() >= notice_at) {
            noticed = true;
            lock.unlock();
            const auto waiting = still_connecting();
            if (!waiting.empty())
                std::cerr << "mcph shell: connecting " << joined(waiting)
                          << "... (Ctrl-C shows the prompt now; they go on connecting)\n"
                          << std::flush;
            lock.lock();
        }
    }
    lock.unlock();
    const auto waiting = announcer_->give_up_waiting(attempted_);
    if (!waiting.empty())
        std::cerr << "\nmcph shell: still connecting " << joined(waiting) << "; each is reported here when it is done\n"
                  << std::flush;
    return waiting;
}

}  // namespace mcph::cli
