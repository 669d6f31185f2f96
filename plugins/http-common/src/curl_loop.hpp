// The libcurl multi loop both HTTP transports run on their I/O thread: the options every easy
// handle carries, and the table of transfers in flight (launch, reap, take one out, drop all),
// driven by their sockets (curl_driver.hpp).
// One copy, so a fix to how transfers are set up or reaped reaches both. [I/O thread only]
#pragma once

#include "curl_driver.hpp"
#include "curl_handles.hpp"

#include <chrono>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace mcph::http {

template <class T>
void setopt(CURL* easy, CURLoption option, T value) {
    // Options set here are valid for this libcurl; a failure means out of memory.
    if (curl_easy_setopt(easy, option, value) != CURLE_OK) throw std::bad_alloc();
}

struct EasyOptions {
    std::chrono::milliseconds connect_timeout;
    const std::string& ca_file;  // "" = the system store
};

// The options of every transfer: URL, our callbacks (`owner` is CURLOPT_PRIVATE and the write
// callback's user pointer), http/https only, the connect bound, TCP keep-alive (no low-speed
// limit: quiet streams are healthy), TLS verification always on. Proxies come from the usual
// environment variables (libcurl's default, NO_PROXY included): nothing here overrides them.
// Redirects are not followed (libcurl's default): requests carry credentials.
void set_common_options(CURL* easy, const std::string& url, const EasyOptions& options,
                        curl_write_callback write, void* owner, char* error_buffer);

// The transfers in flight on one multi handle, owned by it. T has `EasyHandle easy` and
// `HeaderList headers`, and is the easy handle's CURLOPT_PRIVATE.
template <class T>
class TransferTable {
public:
    // libcurl never opens more than `max_connections` for this table; a transfer beyond waits in
    // its queue. The connection cache keeps no more than that either.
    explicit TransferTable(long max_connections) {
        curl_multi_setopt(multi(), CURLMOPT_MAX_TOTAL_CONNECTIONS, max_connections);
        curl_multi_setopt(multi(), CURLMOPT_MAXCONNECTS, max_connections);
    }
    ~TransferTable() { clear(); }
    TransferTable(const TransferTable&) = delete;
    TransferTable& operator=(const TransferTable&) = delete;

    CURLM* multi() const { return driver_.multi(); }
    CurlDriver& driver() { return driver_; }
    void wakeup() const noexcept { driver_.wakeup(); }  // [thread-safe]

    // Headers set, added to the multi, owned here.
    void launch(std::unique_ptr<T> t) {
        setopt(t->easy.get(), CURLOPT_HTTPHEADER, t->headers.get());
        if (curl_multi_add_handle(multi(), t->easy.get()) != CURLM_OK) throw std::bad_alloc();
        T* raw = t.get();
        transfers_.emplace(raw, std::move(t));
    }

    // One transfer out of the multi (cut short if it was running); null when unknown.
    std::unique_ptr<T> take(T* raw) {
        auto it = transfers_.find(raw);
        if (it == transfers_.end()) return nullptr;
        std::unique_ptr<T> t = std::move(it->second);
        transfers_.erase(it);
        curl_multi_remove_handle(multi(), t->easy.get());
        return t;
    }

    // Runs libcurl on what the last poll() saw ready and on its due timers (write callbacks fire
    // from here), then hands each finished transfer, already out of the multi, to
    // on_done(std::unique_ptr<T>, CURLcode) — after curl_multi_info_read, never inside a libcurl
    // callback — while stop() is false.
    template <class OnDone, class Stop>
    void perform_and_reap(OnDone&& on_done, Stop&& stop) {
        driver_.act();
        int left = 0;
        while (!stop()) {
            CURLMsg* msg = curl_multi_info_read(multi(), &left);
            if (!msg) break;
            if (msg->msg != CURLMSG_DONE) continue;
            CURLcode code = msg->data.result;
            T* raw = nullptr;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &raw);
            std::unique_ptr<T> t = take(raw);
            if (!t) {
                curl_multi_remove_handle(multi(), msg->easy_handle);
                continue;
            }
            on_done(std::move(t), code);
        }
    }

    // Waits for socket activity, a wakeup(), libcurl's next timer or `timeout_ms`.
    void poll(int timeout_ms) { driver_.wait(timeout_ms); }

    // For a loop thread retiring to an idle watch (CurlDriver::sockets_waiting_for_input): one
    // socket per transfer, each waited on for input only, and libcurl's next timer.
    bool sockets_waiting_for_input(std::vector<int>& sockets, std::chrono::steady_clock::time_point& deadline) const {
        return driver_.sockets_waiting_for_input(transfers_.size(), sockets, deadline);
    }

    // The transfers for which pred(const T&) holds.
    template <class Pred>
    std::vector<T*> select(Pred&& pred) const {
        std::vector<T*> out;
        for (const auto& [raw, t] : transfers_)
            if (pred(*t)) out.push_back(raw);
        return out;
    }
    const std::unordered_map<T*, std::unique_ptr<T>>& all() const { return transfers_; }

    // Every transfer out of the multi and gone.
    void clear() noexcept {
        for (auto& [raw, t] : transfers_) curl_multi_remove_handle(multi(), t->easy.get());
        transfers_.clear();
    }

private:
    CurlDriver driver_;  // declared first: destroyed after the transfers were removed from it
    std::unordered_map<T*, std::unique_ptr<T>> transfers_;
};

}  // namespace mcph::http
