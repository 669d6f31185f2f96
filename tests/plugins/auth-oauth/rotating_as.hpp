// Shared by the cross-process auth tests (test_refresh_lock.cpp, test_keyring_store.cpp): a
// scripted token endpoint that rotates refresh tokens and counts refreshes, the tokens a process
// would have stored, and small process/file helpers.
#pragma once

#include "fake_server.hpp"
#include "token_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

namespace oauth_test {

namespace fs = std::filesystem;

inline std::map<std::string, std::string> parse_form(const std::string& body) {
    std::map<std::string, std::string> out;
    std::istringstream in(body);
    std::string pair;
    while (std::getline(in, pair, '&')) {
        auto eq = pair.find('=');
        if (eq != std::string::npos) out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
    return out;
}

// The token endpoint only: the stored tokens carry everything a refresh needs. Tokens are
// "<prefix>at-<n>" / "<prefix>rt-<n>"; the seed refresh token is "<prefix>rt-0".
class RotatingAs {
public:
    explicit RotatingAs(std::chrono::milliseconds delay, std::string prefix = {})
        : prefix_(std::move(prefix)), current_(prefix_ + "rt-0") {
        server.on([this, delay](http_test::Exchange& ex) { handle(ex, delay); });
    }
    std::string origin() const { return "http://127.0.0.1:" + std::to_string(server.port()); }
    std::string mcp_url() const { return origin() + "/mcp"; }
    const std::string& prefix() const { return prefix_; }

    int refreshes = 0, rejected = 0;  // under mutex_
    std::mutex mutex_;
    http_test::FakeServer server;

private:
    void handle(http_test::Exchange& ex, std::chrono::milliseconds delay) {
        {
            if (ex.request.target != "/token" || ex.request.method != "POST") {
                ex.respond(404, "{}", {{"Content-Type", "application/json"}});
                return;
            }
            auto form = parse_form(ex.request.body);
            std::string issued;
            {
                std::lock_guard<std::mutex> g(mutex_);
                ++refreshes;
                if (form["grant_type"] != "refresh_token" || form["refresh_token"] != current_) {
                    ++rejected;
                    ex.respond(400, "{\"error\":\"invalid_grant\"}", {{"Content-Type", "application/json"}});
                    return;
                }
                issued = std::to_string(++counter_);
                current_ = prefix_ + "rt-" + issued;  // rotation: the one just spent is dead from now on
            }
            std::this_thread::sleep_for(delay);
            ex.json("{\"access_token\":\"" + prefix_ + "at-" + issued + "\",\"token_type\":\"Bearer\",\"expires_in\":3600," +
                    "\"refresh_token\":\"" + prefix_ + "rt-" + issued + "\"}");
        }
    }
    std::string prefix_;
    std::string current_;
    int counter_ = 0;
};

// What a process stored after signing in to `as`, now expired: the next request must refresh.
inline mcph::oauth::StoredTokens expired_tokens(const RotatingAs& as) {
    mcph::oauth::StoredTokens t;
    t.access_token = as.prefix() + "at-0";
    t.refresh_token = as.prefix() + "rt-0";
    t.expires_at = mcph::oauth::now_seconds() - 10;
    t.token_endpoint = as.origin() + "/token";
    t.issuer = as.origin();
    t.resource = as.mcp_url();
    t.client.client_id = "client-1";
    t.client.auth_method = "none";
    t.client.source = "dcr";
    t.client.issuer = as.origin();
    return t;
}

// The key mcph-secrets-driver's auth object ("refresh-server", config {}) keeps its tokens under.
inline std::string driver_tokens_key(const RotatingAs& as) {
    return mcph::oauth::store_key_base("refresh-server", as.mcp_url(), "") + ".tokens";
}

class ScratchFolder {
public:
    ScratchFolder() {
        std::string pattern = (fs::temp_directory_path() / "mcph-refresh-lock-XXXXXX").string();
        if (::mkdtemp(pattern.data())) path = pattern;
    }
    ~ScratchFolder() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
    fs::path path;
};

// The credentials file the host's file store reads: {"<key>": "<serialized tokens>"}, 0600.
inline void write_credentials(const fs::path& file, const std::string& key, const std::string& value) {
    fs::create_directories(file.parent_path());
    fs::permissions(file.parent_path(), fs::perms::owner_all);
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key(key.c_str());
    w.String(value.c_str());
    w.EndObject();
    std::ofstream(file) << buf.GetString();
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
}

inline std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

inline std::string read_all(FILE* f) {
    std::string out;
    std::array<char, 512> buf{};
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
    return out;
}

inline std::string file_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace oauth_test
