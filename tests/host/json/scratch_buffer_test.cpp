// mcph/scratch_buffer.hpp: the per-thread retained block behind outgoing text and parse copies.
#include <mcph/bounded_json.hpp>
#include <mcph/json.hpp>
#include <mcph/json_writer.hpp>
#include <mcph/scratch_buffer.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>

namespace mcph {
namespace {

const char* fill(scratch::StringBuffer& b, std::size_t bytes) {
    std::memset(b.Push(bytes), 'x', bytes);
    return b.GetString();
}

TEST(ScratchBuffer, TheNextBufferOnTheSameThreadReusesTheBlock) {
    const char* first = nullptr;
    {
        scratch::StringBuffer b;
        first = fill(b, 300'000);
    }
    scratch::StringBuffer again;
    EXPECT_EQ(fill(again, 1000), first) << "the same memory, not a fresh allocation";
    EXPECT_EQ(fill(again, 200'000), first) << "and it grows in place within the kept capacity";
}

TEST(ScratchBuffer, ANestedBufferGetsItsOwnMemoryAndBothStayIntact) {
    scratch::StringBuffer outer;
    std::memset(outer.Push(5000), 'o', 5000);
    {
        scratch::StringBuffer inner;  // the block is lent to `outer`: this one is plain malloc
        std::memset(inner.Push(7000), 'i', 7000);
        EXPECT_EQ(std::string(inner.GetString(), inner.GetSize()), std::string(7000, 'i'));
    }
    std::memset(outer.Push(100), 'p', 100);
    EXPECT_EQ(std::string(outer.GetString(), outer.GetSize()), std::string(5000, 'o') + std::string(100, 'p'));
}

TEST(ScratchBuffer, ABlockAboveTheRetentionBoundIsGivenBack) {
    {
        scratch::StringBuffer b;
        fill(b, 1000);                       // the thread's block, lent
        fill(b, scratch::kRetainBytes + 1);  // grown past the bound
        EXPECT_EQ(scratch::thread_block().block, static_cast<const void*>(b.GetString()));
    }
    EXPECT_EQ(scratch::thread_block().block, nullptr) << "a block grown past the bound is freed, not kept";
    EXPECT_EQ(scratch::thread_block().capacity, 0u);
    EXPECT_FALSE(scratch::thread_block().lent);

    {
        scratch::StringBuffer small;
        fill(small, 1000);  // the thread keeps a block again
    }
    const void* kept = scratch::thread_block().block;
    ASSERT_NE(kept, nullptr);
    {
        scratch::StringBuffer large;  // larger than the bound from its first byte: plain malloc
        fill(large, scratch::kRetainBytes + 1);
        EXPECT_NE(static_cast<const void*>(large.GetString()), kept);
    }
    EXPECT_EQ(scratch::thread_block().block, kept) << "the kept block is untouched";
    EXPECT_LE(scratch::thread_block().capacity, scratch::kRetainBytes);
}

TEST(ScratchBuffer, EachThreadHasItsOwnBlock) {
    const char* here = nullptr;
    {
        scratch::StringBuffer b;
        here = fill(b, 100'000);
    }
    const void* there = nullptr;
    std::thread t([&] {
        scratch::StringBuffer b;
        fill(b, 100'000);
        there = scratch::thread_block().block;
    });
    t.join();
    EXPECT_NE(there, static_cast<const void*>(here));
    EXPECT_EQ(scratch::thread_block().block, static_cast<const void*>(here)) << "this thread's block is untouched";
}

TEST(ScratchBuffer, ALargeParseCopyUsesAndReturnsTheBlock) {
    const std::string text = "{\"text\":\"" + std::string(200'000, 'y') + "\"}";
    rapidjson::Document doc;
    ASSERT_TRUE(json_bounds::parse(doc, text));
    EXPECT_EQ(doc["text"].GetStringLength(), 200'000u);
    EXPECT_FALSE(scratch::thread_block().lent) << "the padded copy gave the block back";
    EXPECT_GE(scratch::thread_block().capacity, text.size() + 1 + json_bounds::PaddedCopy::kPadding);
}

// The second block: the stacks of writers and tree builders.
using StackBlock = scratch::ThreadBlock;
StackBlock& stack_block() { return scratch::thread_block<scratch::Kind::Stack>(); }

TEST(ScratchStack, AWritersLevelsAndAParsesPendingValuesUseTheThreadsStackBlock) {
    rapidjson::StringBuffer out;
    {
        json_writer::Writer<rapidjson::StringBuffer> w(out);
        w.StartObject();
        w.Key("a");
        w.StartArray();
        w.EndArray();
        w.EndObject();
    }
    const void* block = stack_block().block;
    ASSERT_NE(block, nullptr) << "the writer's level stack was taken from the stack block";
    EXPECT_FALSE(stack_block().lent) << "and given back when the writer died";
    EXPECT_EQ(std::string(out.GetString()), R"({"a":[]})");

    rapidjson::Document doc;
    ASSERT_TRUE(json_bounds::parse(doc, R"({"x":[1,2,{"y":"z"}]})"));
    EXPECT_EQ(stack_block().block, block) << "the same memory again, not a fresh allocation";
    EXPECT_FALSE(stack_block().lent);
    EXPECT_EQ(doc["x"][2]["y"], "z");
}

TEST(ScratchStack, ABuildWhileTheBlockIsLentGetsItsOwnMemoryAndLeavesTheBlockAlone) {
    void* lent = scratch::acquire<scratch::Kind::Stack>(512);
    ASSERT_EQ(lent, stack_block().block);
    std::memset(lent, 'k', 512);
    rapidjson::Document doc;
    ASSERT_TRUE(json_bounds::parse(doc, R"([[1],[2],[3]])"));
    EXPECT_EQ(doc[2][0].GetInt(), 3);
    Json copy = clone_json(doc);
    EXPECT_EQ(to_json(copy), "[[1],[2],[3]]");
    EXPECT_TRUE(stack_block().lent) << "still lent to its first user";
    EXPECT_EQ(static_cast<const char*>(lent)[511], 'k') << "its bytes untouched";
    scratch::release<scratch::Kind::Stack>(lent);
    EXPECT_FALSE(stack_block().lent);
}

TEST(ScratchStack, AStackGrownPastTheBoundIsNotKept) {
    // 20,000 array elements wait on the builder's stack until the array ends: 320 KB, past the
    // 64 KiB a thread keeps.
    std::string text = "[";
    for (int i = 0; i < 20000; ++i) text += (i ? ",1" : "1");
    text += "]";
    rapidjson::Document doc;
    ASSERT_TRUE(json_bounds::parse(doc, text));
    EXPECT_EQ(doc.Size(), 20000u);
    EXPECT_FALSE(stack_block().lent);
    EXPECT_LE(stack_block().capacity, scratch::kRetainStackBytes);
    Json copy = clone_json(doc);  // the copy's builder needs as much: also not kept
    EXPECT_EQ(copy.Size(), 20000u);
    EXPECT_LE(stack_block().capacity, scratch::kRetainStackBytes);
}

}  // namespace
}  // namespace mcph
