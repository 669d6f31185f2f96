// The host's secret store is chosen on first use: building it chooses nothing (no keyring probe,
// no libsecret), the first operation chooses once for every thread, the host is told once, and a
// choice that failed is made again on the next use rather than leaving the host without a store.
#include "secrets/lazy_secret_store.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using mcph::secrets::LazySecretStore;
using mcph::secrets::SelectedStore;

SelectedStore memory_choice() {
    SelectedStore s;
    s.store = std::make_shared<mcph::plugins::MemorySecretStore>();
    s.kind = "memory";
    s.detail = "test";
    s.lock_folder = "/nonexistent/locks";
    return s;
}

TEST(LazySecretStore, ChoosesNothingUntilTheFirstOperationThenOnceForEveryThread) {
    std::atomic<int> choices{0}, told{0};
    LazySecretStore store([&] { ++choices; return memory_choice(); }, [&](const SelectedStore& s) {
        EXPECT_EQ(s.kind, "memory");
        ++told;
    });
    EXPECT_EQ(choices.load(), 0);
    EXPECT_FALSE(store.has_chosen());

    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&store, i] { store.set("k" + std::to_string(i), "v" + std::to_string(i)); });
    for (auto& t : threads) t.join();
    EXPECT_EQ(choices.load(), 1);
    EXPECT_EQ(told.load(), 1);
    EXPECT_TRUE(store.has_chosen());
    for (int i = 0; i < 8; ++i) EXPECT_EQ(store.get("k" + std::to_string(i)), "v" + std::to_string(i));
    store.erase("k0");
    EXPECT_EQ(store.get("k0"), std::nullopt);
    EXPECT_EQ(store.chosen().lock_folder, "/nonexistent/locks");
    EXPECT_EQ(choices.load(), 1);
}

TEST(LazySecretStore, AChoiceThatFailedIsMadeAgainOnTheNextUse) {
    int attempts = 0;
    LazySecretStore store([&]() -> SelectedStore {
        if (++attempts == 1) throw mcph::Error(mcph::ErrorKind::Connection, "no store yet");
        return memory_choice();
    }, nullptr);
    try {
        store.get("k");
        ADD_FAILURE() << "expected the chooser's error";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Connection);
    }
    EXPECT_FALSE(store.has_chosen());
    EXPECT_EQ(store.get("k"), std::nullopt);
    EXPECT_EQ(attempts, 2);
}

}  // namespace
