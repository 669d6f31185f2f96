#include "shell_connects.hpp"

#include "shell_editor.hpp"
#include "shell_events.hpp"

#include <mcph/text.hpp>

#include <condition_variable>
#include <exception>
#include <iostream>
#include <variant>

namespace mcph::cli {
namespace {

// The line that reports how an attempt ended; empty while it has not.
std::string outcome_line(const std::string& server, const ConnectionState& state) {
    const std::string name = terminal_safe(server, LineBreaks::Escape);
    const std::string who = "mcph: server '" + name + "'";
    if (std::holds_alternative<state::Connected>(state)) return who + " connected";
    if (auto* f = std::get_if<state::Failed>(&state)) return who + " failed: " + terminal_safe(f->error, LineBreaks::Escape);
    if (auto* n = std::get_if<state::NeedsAuth>(&state))
        return who + " needs sign-in (`login " + name + "`): " + terminal_safe(n->reason, LineBreaks::Escape);
    if (auto* d = std::get_if<state::Disabled>(&state)) return who + " is disabled: " + terminal_safe(d->reason, LineBreaks::Escape);
    return {};
}

}  // namespace

std::string still_connecting_note(std::size_t servers) {
    return servers == 1 ? "it goes on connecting, and its outcome is printed here when it comes"
                        : "they go on connecting, and each outcome is printed here when it comes";
}

std::string server_list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + terminal_safe(name, LineBreaks::Escape);
    return out;
}

// ---- ConnectAnnouncer ----------------------------------------------------------------------------

void ConnectAnnouncer::on_state_change(const std::string& server, const ConnectionState& state) {
    const std::string line = outcome_line(server, state);
    std::lock_guard lock(mutex_);
    ended_[server] = !line.empty();
    if (line.empty() || stopped_ || waiting_.erase(server) == 0) return;
    print_console_line(line);  // queued above the prompt, or printed at once while a command runs
}

std::vector<std::string> ConnectAnnouncer::announce_later(const std::vector<std::string>& servers) {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& server : servers) {
        const auto it = ended_.find(server);
        if (it != ended_.end() && it->second) continue;  // ended since it was found connecting
        waiting_.insert(server);
        out.push_back(server);
    }
    return out;
}

void ConnectAnnouncer::stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    waiting_.clear();
}

ConnectWaitStopped::ConnectWaitStopped(const std::vector<std::string>& servers)
    : Error(ErrorKind::Cancelled, "stopped waiting" + (servers.empty() ? std::string() : " for " + server_list(servers)) +
                                      "; " + still_connecting_note(servers.size())) {}

// ---- ShellConnects -------------------------------------------------------------------------------

struct ShellConnects::Job {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    std::exception_ptr error;
};

ShellConnects::ShellConnects(Host& host, std::shared_ptr<ConnectAnnouncer> announcer, bool terminal)
    : host_(host), announcer_(std::move(announcer)), terminal_(terminal) {}

ShellConnects::~ShellConnects() {
    if (left_running_.empty()) return;
    announcer_->stop();  // ended on purpose: not reported
    for (const auto& name : pending_servers(host_)) {
        try {
            host_.disconnect(name);
        } catch (const std::exception&) {
            // not configured any more: nothing of it to end
        }
    }
    for (auto& [thread, job] : left_running_) thread.join();
}

std::vector<std::string> pending_servers(Host& host, const std::vector<std::string>& among) {
    std::vector<std::string> out;
    for (const auto& name : among.empty() ? host.server_names() : among) {
        try {
            if (std::holds_alternative<state::Pending>(host.state(name))) out.push_back(name);
        } catch (const std::exception&) {
        }
    }
    return out;
}

void ShellConnects::join_finished() {
    for (auto it = left_running_.begin(); it != left_running_.end();) {
        bool done = false;
        {
            std::lock_guard lock(it->second->mutex);
            done = it->second->done;
        }
        if (!done) {
            ++it;
            continue;
        }
        it->first.join();
        it = left_running_.erase(it);
    }
}

ShellConnects::Waited ShellConnects::run(std::function<void()> step, const std::vector<std::string>& servers) {
    if (!terminal_) {  // a script: nobody presses Ctrl-C, and Ctrl-C ends the shell
        step();
        return {};
    }
    join_finished();  // a person may stop many waits: their ended threads do not pile up
    auto job = std::make_shared<Job>();
    std::thread thread([job, step = std::move(step)] {
        try {
            step();
        } catch (...) {
            job->error = std::current_exception();
        }
        std::lock_guard lock(job->mutex);
        job->done = true;
        job->cv.notify_all();
    });
    const auto notice_at = std::chrono::steady_clock::now() + kConnectNoticeDelay;
    bool noticed = false;
    std::unique_lock lock(job->mutex);
    for (;;) {
        // Ctrl-C sets a flag (the editor's SIGINT handler): looked at every 50 ms while waiting.
        if (job->cv.wait_for(lock, std::chrono::milliseconds(50), [&job] { return job->done; })) {
            lock.unlock();
            thread.join();
            if (job->error) std::rethrow_exception(job->error);
            return {};
        }
        if (LineEditor::take_interrupt()) break;
        if (!noticed && std::chrono::steady_clock::now() >= notice_at) {
            noticed = true;
            lock.unlock();
            if (const auto waiting = pending_servers(host_, servers); !waiting.empty())
                std::cerr << "mcph: connecting " << server_list(waiting) << "... (Ctrl-C stops waiting; "
                          << (waiting.size() == 1 ? "it goes" : "they go") << " on connecting)\n"
                          << std::flush;
            lock.lock();
        }
    }
    lock.unlock();
    left_running_.emplace_back(std::move(thread), job);
    std::cerr << "\n" << std::flush;  // after the terminal's "^C"
    return {true, announcer_->announce_later(pending_servers(host_, servers))};
}

void ShellConnects::run_for_command(std::function<void()> step, const std::vector<std::string>& servers) {
    const Waited waited = run(std::move(step), servers);
    if (waited.stopped) throw ConnectWaitStopped(waited.still_connecting);
}

}  // namespace mcph::cli
