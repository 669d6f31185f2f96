#include "connect_notice.hpp"

#include "shell_connects.hpp"

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

namespace mcph::cli {

void run_with_connect_notice(Host& host, const std::function<void()>& step, const std::vector<std::string>& servers) {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    std::thread notice([&] {
        std::unique_lock lock(mutex);
        if (cv.wait_for(lock, kConnectNoticeDelay, [&done] { return done; })) return;
        lock.unlock();
        if (const auto waiting = pending_servers(host, servers); !waiting.empty())
            std::cerr << "mcph: connecting " << server_list(waiting) << "... (Ctrl-C ends the command)\n" << std::flush;
    });
    // Ends the notice's thread however the step ends (it throws when a server fails).
    struct EndNotice {
        std::mutex& mutex;
        std::condition_variable& cv;
        bool& done;
        std::thread& thread;
        ~EndNotice() {
            {
                std::lock_guard lock(mutex);
                done = true;
            }
            cv.notify_all();
            thread.join();
        }
    } end_notice{mutex, cv, done, notice};
    step();
}

}  // namespace mcph::cli
