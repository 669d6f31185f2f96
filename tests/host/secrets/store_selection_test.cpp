// Which secret store a host picks and why: no session bus, a hung D-Bus peer (bounded), the
// MCPH_SECRET_STORE switch, and a keyring asked for that cannot be used. The real keyring is
// tested against gnome-keyring-daemon in tests/plugins/auth-oauth/test_keyring_store.cpp (glib
// caches the session bus per process, so those runs are separate processes).
#include "secrets/store_selection.hpp"

#include "test_scratch.hpp"
#include "test_helpers.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using mcph::secrets::StoreChoice;
using mcph::test::ScopedEnv;

using host_test::contains;

auto env_of(std::optional<std::string> value) {
    return [value](std::string_view) { return value; };
}

TEST(SecretStoreSelection, NoSessionBusFallsBackToTheFileSayingWhy) {
    mcph::test::ScratchDir dir;
    ScopedEnv bus("DBUS_SESSION_BUS_ADDRESS", nullptr);
    ScopedEnv runtime("XDG_RUNTIME_DIR", dir.path().c_str());  // no "bus" socket in it
    auto s = mcph::secrets::select_secret_store(StoreChoice::Auto, dir.path() / "credentials.json");
    EXPECT_EQ(s.kind, "file");
    EXPECT_TRUE(s.fell_back);
    EXPECT_FALSE(s.keyring_expected);  // a headless machine: info, not a warning
    EXPECT_TRUE(contains(s.detail, "credentials.json")) << s.detail;
    EXPECT_TRUE(contains(s.detail, "no D-Bus session bus")) << s.detail;
    EXPECT_EQ(s.lock_folder, dir.path() / "locks");
    s.store->set("k", "v");
    EXPECT_EQ(s.store->get("k"), "v");
}

// A peer that accepts the connection and never says a word (not even the SASL handshake): the
// probe gives up at its bound and the host carries on with the file store.
TEST(SecretStoreSelection, HungBusPeerIsBoundedByTheProbeTimeout) {
    mcph::test::ScratchDir dir;
    const auto socket_path = dir.path() / "bus";
    int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_path.c_str());
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(listener, 4), 0);
    std::atomic<int> accepted{-1};
    std::thread acceptor([&] { accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC); });

    ScopedEnv bus("DBUS_SESSION_BUS_ADDRESS", ("unix:path=" + socket_path.string()).c_str());
    const auto start = std::chrono::steady_clock::now();
    auto s = mcph::secrets::select_secret_store(StoreChoice::Auto, dir.path() / "credentials.json", 300ms);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(s.kind, "file");
    EXPECT_TRUE(s.fell_back);
    EXPECT_TRUE(s.keyring_expected);  // a bus is there: the user probably meant the keyring (warn)
    EXPECT_TRUE(contains(s.detail, "did not answer within 300 ms")) << s.detail;
    EXPECT_LT(took, 3s);

    ::shutdown(listener, SHUT_RDWR);
    acceptor.join();
    if (accepted >= 0) ::close(accepted);
    ::close(listener);
}

TEST(SecretStoreSelection, EnvironmentSwitchOverridesOnlyAuto) {
    using mcph::secrets::choice_from_environment;
    EXPECT_EQ(choice_from_environment(StoreChoice::Auto, env_of(std::nullopt)), StoreChoice::Auto);
    EXPECT_EQ(choice_from_environment(StoreChoice::Auto, env_of("file")), StoreChoice::File);
    EXPECT_EQ(choice_from_environment(StoreChoice::Auto, env_of("keyring")), StoreChoice::Keyring);
    EXPECT_EQ(choice_from_environment(StoreChoice::Auto, env_of("auto")), StoreChoice::Auto);
    EXPECT_EQ(choice_from_environment(StoreChoice::Memory, env_of("keyring")), StoreChoice::Memory);
    try {
        choice_from_environment(StoreChoice::Auto, env_of("vault"));
        FAIL();
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        EXPECT_TRUE(contains(e.what(), "MCPH_SECRET_STORE=vault")) << e.what();
        EXPECT_TRUE(contains(e.what(), "auto, file or keyring")) << e.what();
    }
}

TEST(SecretStoreSelection, ForcedKeyringThatCannotBeUsedFailsInsteadOfWritingAFile) {
    mcph::test::ScratchDir dir;
    ScopedEnv bus("DBUS_SESSION_BUS_ADDRESS", nullptr);
    ScopedEnv runtime("XDG_RUNTIME_DIR", nullptr);
    const auto file = dir.path() / "credentials.json";
    auto s = mcph::secrets::select_secret_store(StoreChoice::Keyring, file);
    EXPECT_EQ(s.kind, "keyring");
    EXPECT_TRUE(contains(s.detail, "unavailable: no D-Bus session bus")) << s.detail;
    try {
        s.store->set("k", "secret-value");
        FAIL();
    } catch (const mcph::Error& e) {
        EXPECT_TRUE(contains(e.what(), "MCPH_SECRET_STORE=keyring")) << e.what();
        EXPECT_TRUE(contains(e.what(), "no D-Bus session bus")) << e.what();
        EXPECT_FALSE(contains(e.what(), "secret-value"));
    }
    EXPECT_FALSE(std::filesystem::exists(file));
}

TEST(SecretStoreSelection, FileChosenByConfigurationSaysSo) {
    mcph::test::ScratchDir dir;
    auto s = mcph::secrets::select_secret_store(StoreChoice::File, dir.path() / "credentials.json");
    EXPECT_EQ(s.kind, "file");
    EXPECT_FALSE(s.fell_back);
    EXPECT_TRUE(contains(s.detail, "chosen by configuration")) << s.detail;
}

}  // namespace
