// http-common spare_strings: large bodies' memory reused, within the process-wide bounds.
#include "outgoing.hpp"
#include "spare_strings.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace {

using mcph::http::SpareStrings;

// A local stash (the shared one is the plugin's, used by other tests in this process).
TEST(SpareStrings, ALargeStringGivenBackServesTheNextTakeWithItsMemory) {
    SpareStrings stash;
    std::string body(size_t{1} << 20, 'b');
    const char* memory = body.data();
    stash.give(std::move(body));
    std::string next = stash.take(size_t{1} << 20);
    EXPECT_EQ(next.data(), memory) << "the same memory, not a fresh allocation";
    EXPECT_TRUE(next.empty()) << "handed out cleared";
    EXPECT_TRUE(stash.take(size_t{1} << 20).capacity() < SpareStrings::kMinBytes) << "taken once only";
}

TEST(SpareStrings, SmallTooLargeAndTooManyAreNotKept) {
    SpareStrings stash;
    std::string small(1000, 's');
    stash.give(std::move(small));
    EXPECT_LT(stash.take(SpareStrings::kMinBytes).capacity(), SpareStrings::kMinBytes) << "a small body is not worth keeping";

    std::string huge(SpareStrings::kMaxBytes + 1, 'h');
    stash.give(std::move(huge));
    EXPECT_LT(stash.take(SpareStrings::kMinBytes).capacity(), SpareStrings::kMinBytes) << "above kMaxBytes: freed, not kept";

    for (size_t i = 0; i < SpareStrings::kKeep + 2; ++i) stash.give(std::string((size_t{128} << 10) * (i + 1), 'x'));
    size_t kept = 0;
    size_t largest = 0;
    // A fresh string each round: move-assigning an empty (small-string) result into a string that
    // holds a heap buffer keeps that buffer, so a reused variable would never look empty.
    for (;;) {
        const std::string s = stash.take(SpareStrings::kMinBytes);
        if (s.capacity() < SpareStrings::kMinBytes) break;
        ++kept;
        largest = std::max(largest, s.capacity());
    }
    EXPECT_EQ(kept, SpareStrings::kKeep) << "at most kKeep, however many are given";
    EXPECT_GE(largest, (size_t{128} << 10) * (SpareStrings::kKeep + 2)) << "the larger ones are the ones kept";
}

TEST(SpareStrings, TakeNeverHandsOutLessThanAsked) {
    SpareStrings stash;
    stash.give(std::string(size_t{100} << 10, 'x'));
    EXPECT_LT(stash.take(size_t{200} << 10).capacity(), SpareStrings::kMinBytes);
    EXPECT_GE(stash.take(size_t{100} << 10).capacity(), size_t{100} << 10);
}

TEST(SpareStrings, GiveAndTakeFromManyThreads) {
    SpareStrings stash;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                std::string s = stash.take(size_t{64} << 10);
                s.assign(size_t{64} << 10, 'z');
                EXPECT_EQ(s.size(), size_t{64} << 10);
                stash.give(std::move(s));
            }
        });
    for (auto& t : threads) t.join();
}

// The transfer's copy of a large outgoing message lands in a kept body's memory.
TEST(SpareStrings, ALargeOutgoingMessageIsCopiedIntoAKeptBody) {
    while (SpareStrings::shared().take(SpareStrings::kMinBytes).capacity() >= SpareStrings::kMinBytes) {
    }  // whatever earlier tests left
    std::string spare(size_t{2} << 20, 'k');
    const char* memory = spare.data();
    SpareStrings::shared().give(std::move(spare));
    const std::string message = R"({"jsonrpc":"2.0","method":"notifications/message","params":{"data":")" +
                                std::string(size_t{1} << 20, 'm') + R"("}})";
    mcph::http::Command c = mcph::http::outgoing_command(message, nullptr, size_t{4} << 20);
    EXPECT_EQ(c.payload, message);
    EXPECT_EQ(c.payload.data(), memory);
}

}  // namespace
