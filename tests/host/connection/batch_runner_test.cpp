#include "connection/batch_runner.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using mcph::test::ScopedEnv;

using mcph::connection::BatchSizes;
using mcph::connection::run_in_batches;


// Each task notes when it started and ended (a global sequence number, under a mutex) and how many
// tasks were running at the time.
struct Recorder {
    struct Span {
        int start = -1, end = -1;
    };
    std::mutex mutex;
    int clock = 0, running = 0, max_running = 0;
    std::vector<Span> spans;

    explicit Recorder(std::size_t n) : spans(n) {}

    std::function<void()> task(std::size_t i, std::chrono::milliseconds work) {
        return [this, i, work] {
            {
                std::lock_guard lock(mutex);
                spans[i].start = clock++;
                max_running = std::max(max_running, ++running);
            }
            std::this_thread::sleep_for(work);
            std::lock_guard lock(mutex);
            spans[i].end = clock++;
            --running;
        };
    }
};

void expect_batched(const Recorder& r, std::size_t batch_size) {
    std::size_t n = r.spans.size();
    for (std::size_t i = 0; i < n; ++i) ASSERT_GE(r.spans[i].end, 0) << "task " << i << " did not run";
    for (std::size_t b = batch_size; b < n; b += batch_size) {
        // Every task of batch k ends before any task of batch k+1 starts.
        for (std::size_t prev = b - batch_size; prev < b; ++prev)
            for (std::size_t next = b; next < std::min(n, b + batch_size); ++next)
                EXPECT_LT(r.spans[prev].end, r.spans[next].start) << "task " << prev << " vs " << next;
    }
}

TEST(BatchRunner, ConcurrencyIsBoundedAndBatchesAreSequential) {
    for (std::size_t batch : {std::size_t{1}, std::size_t{3}, std::size_t{4}}) {
        Recorder r(10);
        std::vector<std::function<void()>> tasks;
        // Staggered durations, so a runner that started the next task as soon as any slot freed would
        // be caught.
        for (std::size_t i = 0; i < 10; ++i) tasks.push_back(r.task(i, std::chrono::milliseconds(5 + 10 * (i % 3))));
        run_in_batches(std::move(tasks), batch);
        EXPECT_LE(r.max_running, static_cast<int>(batch)) << "batch " << batch;
        expect_batched(r, batch);
    }
}

TEST(BatchRunner, MembersOfABatchRunInParallel) {
    Recorder r(3);
    std::vector<std::function<void()>> tasks;
    for (std::size_t i = 0; i < 3; ++i) tasks.push_back(r.task(i, std::chrono::milliseconds(100)));
    run_in_batches(std::move(tasks), 3);
    EXPECT_EQ(r.max_running, 3);
}

TEST(BatchRunner, EmptyListAndBatchLargerThanList) {
    run_in_batches({}, 3);
    int count = 0;
    std::mutex m;
    std::vector<std::function<void()>> tasks(2, [&] {
        std::lock_guard lock(m);
        ++count;
    });
    run_in_batches(std::move(tasks), 20);
    EXPECT_EQ(count, 2);
}

TEST(BatchRunner, ThrowingTaskDoesNotStopTheOthersAndTheFirstErrorIsRethrown) {
    std::mutex m;
    std::vector<int> ran;
    std::vector<std::function<void()>> tasks;
    for (int i = 0; i < 7; ++i) {
        tasks.push_back([&, i] {
            {
                std::lock_guard lock(m);
                ran.push_back(i);
            }
            if (i == 1) throw std::runtime_error("task 1 failed");
            if (i == 4) throw std::runtime_error("task 4 failed");
        });
    }
    try {
        run_in_batches(std::move(tasks), 2);
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "task 1 failed");  // batch 1 ends before task 4 starts
    }
    EXPECT_EQ(ran.size(), 7u);
}

TEST(BatchRunner, ZeroBatchSizeIsAUsageError) {
    bool ran = false;
    try {
        run_in_batches({[&] { ran = true; }}, 0);
        ADD_FAILURE() << "accepted";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
    }
    EXPECT_FALSE(ran);
}

TEST(BatchSizes, DefaultsAreTheSeeds) {
    ScopedEnv a("MCPH_LOCAL_CONNECT_BATCH", nullptr);
    ScopedEnv b("MCPH_REMOTE_CONNECT_BATCH", "");
    BatchSizes s = BatchSizes::from_environment();
    EXPECT_EQ(s.local, 3u);
    EXPECT_EQ(s.remote, 20u);
}

TEST(BatchSizes, EnvironmentOverrides) {
    ScopedEnv a("MCPH_LOCAL_CONNECT_BATCH", "1");
    ScopedEnv b("MCPH_REMOTE_CONNECT_BATCH", "64");
    BatchSizes s = BatchSizes::from_environment();
    EXPECT_EQ(s.local, 1u);
    EXPECT_EQ(s.remote, 64u);
}

TEST(BatchSizes, InvalidValueNamesTheVariable) {
    const struct {
        const char* name;
        const char* value;
    } cases[] = {{"MCPH_LOCAL_CONNECT_BATCH", "0"},     {"MCPH_LOCAL_CONNECT_BATCH", "three"},
                 {"MCPH_LOCAL_CONNECT_BATCH", "-2"},    {"MCPH_REMOTE_CONNECT_BATCH", "20x"},
                 {"MCPH_REMOTE_CONNECT_BATCH", " 20"},  {"MCPH_REMOTE_CONNECT_BATCH", "100000"}};
    for (const auto& c : cases) {
        ScopedEnv clean_local("MCPH_LOCAL_CONNECT_BATCH", nullptr);
        ScopedEnv clean_remote("MCPH_REMOTE_CONNECT_BATCH", nullptr);
        ScopedEnv set(c.name, c.value);
        try {
            BatchSizes::from_environment();
            ADD_FAILURE() << c.name << "=" << c.value << " was accepted";
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(c.name), std::string::npos) << e.what();
        }
    }
}

}  // namespace
