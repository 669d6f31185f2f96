// Two processes, one rotating refresh token (issue #12 "Refresh across processes"): two real
// processes (mcph-secrets-driver: the real host services, file store and secret_lock, with the
// built plugin dlopen()ed) start at once with the same stored, expired access token against an
// AS that rotates refresh tokens — the first use of a refresh token invalidates it — and answers
// each refresh after a delay long enough for both processes to be inside their refresh. Exactly
// one refresh reaches the AS; the other process waits on the lock, re-reads the store and adopts
// the winner's token. Without the lock both would refresh and one would get invalid_grant.
#include "fake_server.hpp"
#include "token_store.hpp"

#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::map<std::string, std::string> parse_form(const std::string& body) {
    std::map<std::string, std::string> out;
    std::istringstream in(body);
    std::string pair;
    while (std::getline(in, pair, '&')) {
        auto eq = pair.find('=');
        if (eq != std::string::npos) out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
    return out;
}

// The token endpoint only: the stored tokens carry everything a refresh needs.
class RotatingAs {
public:
    explicit RotatingAs(std::chrono::milliseconds delay) {
        server.on([this, delay](http_test::Exchange& ex) {
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
                current_ = "rt-" + issued;  // rotation: the one just spent is dead from now on
            }
            std::this_thread::sleep_for(delay);
            ex.json("{\"access_token\":\"at-" + issued + "\",\"token_type\":\"Bearer\",\"expires_in\":3600," +
                    "\"refresh_token\":\"rt-" + issued + "\"}");
        });
    }
    std::string origin() const { return "http://127.0.0.1:" + std::to_string(server.port()); }
    std::string mcp_url() const { return origin() + "/mcp"; }

    int refreshes = 0, rejected = 0;  // under mutex_
    std::mutex mutex_;
    http_test::FakeServer server;

private:
    std::string current_ = "rt-0";
    int counter_ = 0;
};

class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "mcph-refresh-lock-XXXXXX").string();
        if (::mkdtemp(pattern.data())) path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
    fs::path path;
};

// The credentials file the host's file store reads: {"<key>": "<serialized tokens>"}, 0600.
void write_credentials(const fs::path& file, const std::string& key, const std::string& value) {
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

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string read_all(FILE* f) {
    std::string out;
    std::array<char, 512> buf{};
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
    return out;
}

std::string file_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(RefreshAcrossProcesses, OneRotatingRefreshTokenTwoProcessesOneRefreshBothSignedIn) {
    RotatingAs as(1500ms);  // both processes are inside refresh_shared while the first is served
    TempDir tmp;
    ASSERT_FALSE(tmp.path.empty());
    const fs::path credentials = tmp.path / "mcph" / "credentials.json";

    mcph::oauth::StoredTokens t;
    t.access_token = "at-0";
    t.refresh_token = "rt-0";
    t.expires_at = mcph::oauth::now_seconds() - 10;  // expired: both must refresh before sending
    t.token_endpoint = as.origin() + "/token";
    t.issuer = as.origin();
    t.resource = as.mcp_url();
    t.client.client_id = "client-1";
    t.client.auth_method = "none";
    t.client.source = "dcr";
    t.client.issuer = as.origin();
    const std::string key = mcph::oauth::store_key_base("refresh-server", as.mcp_url(), "") + ".tokens";
    write_credentials(credentials, key, mcph::oauth::serialize(t));

    // `timeout` bounds each process well below the ctest cap even if the lock were never released.
    auto command = [&](int i) {
        return "MCPH_SECRET_STORE=file MCPH_CREDENTIALS_FILE=" + shell_quote(credentials.string()) + " timeout 15 " +
               shell_quote(MCPH_SECRETS_DRIVER) + " oauth " + shell_quote(MCPH_OAUTH_PLUGIN) + " " +
               shell_quote(as.mcp_url()) + " '{}' 2>" + shell_quote((tmp.path / ("stderr-" + std::to_string(i))).string());
    };
    FILE* a = ::popen(command(1).c_str(), "r");
    FILE* b = ::popen(command(2).c_str(), "r");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    const std::string out_a = read_all(a), out_b = read_all(b);
    const int status_a = ::pclose(a), status_b = ::pclose(b);
    const std::string err_a = file_text(tmp.path / "stderr-1"), err_b = file_text(tmp.path / "stderr-2");

    EXPECT_EQ(status_a, 0) << err_a;
    EXPECT_EQ(status_b, 0) << err_b;
    {
        std::lock_guard<std::mutex> g(as.mutex_);
        EXPECT_EQ(as.refreshes, 1) << "one refresh reaches the AS\n" << err_a << err_b;
        EXPECT_EQ(as.rejected, 0);
    }
    // Both end signed in with the one token the AS issued; the loser says it adopted it.
    EXPECT_EQ(out_a, "authorization\tBearer at-1\n") << err_a;
    EXPECT_EQ(out_b, "authorization\tBearer at-1\n") << err_b;
    const bool a_adopted = err_a.find("using credentials refreshed by another process") != std::string::npos;
    const bool b_adopted = err_b.find("using credentials refreshed by another process") != std::string::npos;
    EXPECT_NE(a_adopted, b_adopted) << err_a << err_b;
    // The store holds the rotated refresh token, so the next refresh (any process) succeeds.
    const std::string stored = file_text(credentials);
    EXPECT_NE(stored.find("rt-1"), std::string::npos);
    EXPECT_EQ(stored.find("rt-0"), std::string::npos);
    // The lock lives beside the store, named by a hash: the key is not in any file name.
    bool saw_lock = false;
    for (const auto& e : fs::directory_iterator(credentials.parent_path() / "locks")) {
        saw_lock = true;
        EXPECT_EQ(e.path().filename().string().find("mcph.oauth"), std::string::npos);
    }
    EXPECT_TRUE(saw_lock);
}

}  // namespace
