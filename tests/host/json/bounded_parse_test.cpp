// json_bounds::parse (in situ on a zero-padded copy, SIMD-scanned where RAPIDJSON_SSE2 is on)
// accepts and refuses exactly what the byte-at-a-time MemoryStream parse it replaced did: same
// status, same error code, same offset, same tree. The reference below is that old parse, kept
// here only as the yardstick.
#include <mcph/bounded_json.hpp>
#include <mcph/json.hpp>

#include <rapidjson/memorystream.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mcph::Json;
using mcph::json_bounds::ParseOutcome;

// The parse as it was before the padded in-situ copy: MemoryStream over the caller's bytes.
template <unsigned Flags = rapidjson::kParseDefaultFlags>
ParseOutcome memory_stream_parse(Json& doc, std::string_view text) {
    using mcph::json_bounds::DepthLimitedHandler;
    ParseOutcome out;
    auto generate = [&](rapidjson::Document& handler) {
        DepthLimitedHandler<rapidjson::Document> limited(handler, mcph::json_bounds::kMaxDepth);
        rapidjson::MemoryStream stream(text.data(), text.size());
        rapidjson::Reader reader;
        const rapidjson::ParseResult result = reader.Parse<Flags | rapidjson::kParseIterativeFlag>(stream, limited);
        if (result) return true;
        out.status = limited.too_deep() ? ParseOutcome::Status::TooDeep : ParseOutcome::Status::Malformed;
        out.code = limited.not_finite() ? rapidjson::kParseErrorNumberTooBig : result.Code();
        out.offset = result.Offset();
        return false;
    };
    doc.Populate(generate);
    if (!out) doc.SetNull();
    return out;
}

std::string written(const Json& doc) {
    rapidjson::StringBuffer buffer;
    mcph::json_bounds::write(doc, buffer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

template <unsigned Flags = rapidjson::kParseDefaultFlags>
void expect_same_as_reference(const std::string& text) {
    Json fast;
    Json reference;
    const ParseOutcome got = mcph::json_bounds::parse<Flags>(fast, text);
    const ParseOutcome want = memory_stream_parse<Flags>(reference, text);
    const std::string shown = text.size() > 80 ? text.substr(0, 80) + "..." : text;
    ASSERT_EQ(static_cast<int>(got.status), static_cast<int>(want.status)) << shown;
    EXPECT_EQ(got.code, want.code) << shown;
    EXPECT_EQ(got.offset, want.offset) << shown;
    if (got) {
        EXPECT_EQ(written(fast), written(reference)) << shown;
    } else {
        EXPECT_TRUE(fast.IsNull()) << shown;
    }
}

TEST(BoundedParse, TableOfDocumentsMatchesTheMemoryStreamParse) {
    using namespace std::string_literals;
    const std::vector<std::string> cases = {
        "{}", "[]", "null", "true", "0", "-1.5e3", "\"\"", "  {\"a\" : [1, 2, {\"b\": null}]}  ",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}",
        // refused
        "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "tru", "nul", "01", "1.", "-", "\"abc", "{\"a\":\"b",
        "[1] [2]", "{} x", "{}}", "\"\\x\"", "\"\\u12\"", "\"\\uD800\"", "\"\\uD800\\u0041\"", "\"\\uDC00\"",
        "\"tab\there\"", "\"line\nbreak\"", "1e400", "[" + std::string(400, '9') + "e400]",
        // a NUL byte ends the input, as MemoryStream's end did
        "{}\0garbage"s, "\"ab\0cd\""s, "[1,\0]"s, "\0"s, "{\"a\":\0}"s,
        // invalid UTF-8 is not validated (it never was): passed through byte for byte
        "\"\xff\xfe\"", "\"\xc3\x28\"", "\"\xed\xa0\x80\"", "{\"k\xff\":1}",
        // the depth bound: exactly 128 levels parse, 129 do not
        std::string(128, '[') + std::string(128, ']'), std::string(129, '[') + std::string(129, ']'),
        std::string(1000, '{'), "[" + std::string(200, '{'),
    };
    for (const std::string& text : cases) expect_same_as_reference(text);
}

// The SIMD scan works in aligned 16-byte blocks: an escape, a quote, a control byte or the
// terminator at every offset across two blocks, with the string starting at every alignment.
TEST(BoundedParse, EscapesAtEverySixteenByteBoundaryMatchTheReference) {
    const std::vector<std::string> specials = {"\\n", "\\\"", "\\\\", "\\u00e9", "\\uD83D\\uDE00", "\\/", "\t", "\x01"};
    for (std::size_t lead = 0; lead < 16; ++lead) {
        for (std::size_t at = 0; at < 40; ++at) {
            for (const std::string& special : specials) {
                std::string text = std::string(lead, ' ') + "[\"" + std::string(at, 'a') + special + std::string(7, 'b') + "\"]";
                expect_same_as_reference(text);
                // Unterminated at the same place: the terminator (NUL) falls inside the block.
                expect_same_as_reference(std::string(lead, ' ') + "[\"" + std::string(at, 'a') + special);
            }
        }
    }
}

TEST(BoundedParse, ExtraFlagsStillApplyInSitu) {
    constexpr unsigned kJsonc = rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag;
    expect_same_as_reference<kJsonc>("{ // a comment\n \"a\": [1, 2,], /* more */ \"b\": \"\\u0041\", }");
    expect_same_as_reference<kJsonc>("{ /* unterminated ");
    expect_same_as_reference<rapidjson::kParseFullPrecisionFlag>("[0.1000000000000000055511151231257827, 1e308]");
    expect_same_as_reference<rapidjson::kParseNumbersAsStringsFlag>("[12345678901234567890123, -0.5]");
}

// The padded copy is scratch: every string of the tree is owned by the document, so a copy of
// a value (CopyFrom, the copying Value constructor, clone_json) outlives the parsed document.
TEST(BoundedParse, ParsedStringsAreOwnedByTheDocumentNotTheScratchCopy) {
    Json copy;
    {
        std::string text = "{\"long\":\"" + std::string(5000, 'z') + "\",\"short\":\"s\",\"n\":[\"x\\ny\"]}";
        Json parsed;
        ASSERT_TRUE(mcph::json_bounds::parse(parsed, text));
        copy.CopyFrom(parsed, copy.GetAllocator());
        text.assign(text.size(), '#');  // the caller's bytes changed: the tree must not see it
    }
    ASSERT_TRUE(copy.IsObject());
    EXPECT_EQ(std::string(copy["long"].GetString()), std::string(5000, 'z'));
    EXPECT_EQ(std::string(copy["short"].GetString()), "s");
    EXPECT_EQ(std::string(copy["n"][0].GetString()), "x\ny");
}

// A 1 MiB string: parsed and written back byte for byte, on the heap-copy path (past the small
// on-stack buffer), with escapes at the far end.
TEST(BoundedParse, OneMebibyteStringRoundTripsByteExact) {
    std::string payload;
    payload.reserve(1 << 20);
    for (std::size_t i = 0; payload.size() < (1u << 20); ++i) payload.push_back(static_cast<char>('a' + i % 26));
    payload += "\"\\\n\x01\xc3\xa9";
    Json doc(rapidjson::kObjectType);
    doc.AddMember("text", rapidjson::StringRef(payload.data(), payload.size()), doc.GetAllocator());
    const std::string text = mcph::to_json(doc);
    Json back = mcph::parse_json(text);
    ASSERT_TRUE(back.IsObject());
    ASSERT_EQ(back["text"].GetStringLength(), payload.size());
    EXPECT_EQ(std::string_view(back["text"].GetString(), back["text"].GetStringLength()), payload);
    EXPECT_EQ(mcph::to_json(back), text);
}

// Around the on-stack/heap switch of the scratch copy (1024 bytes with the terminator and padding).
TEST(BoundedParse, MessagesAroundTheScratchSizeParseTheSame) {
    for (std::size_t n = 990; n < 1030; ++n) {
        expect_same_as_reference("\"" + std::string(n, 'q') + "\"");
        expect_same_as_reference("\"" + std::string(n, 'q'));
    }
}

// A fresh document's pool gets a first chunk sized to the message, not RapidJSON's 64 KiB (that
// chunk per message made glibc grow and trim its heap on every call); a pool already in use is
// left as it is, and a message larger than any chunk still parses whole.
TEST(BoundedParse, AFreshPoolIsSizedToTheMessage) {
    Json small;
    ASSERT_TRUE(mcph::json_bounds::parse(small, R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}})"));
    EXPECT_EQ(small["id"].GetInt(), 7);
    EXPECT_GT(small.GetAllocator().Capacity(), 0u);
    EXPECT_LE(small.GetAllocator().Capacity(), 1024u);

    Json used(rapidjson::kObjectType);
    used.AddMember("k", mcph::JsonValue("a string long enough to be copied into the pool", used.GetAllocator()),
                   used.GetAllocator());
    const std::size_t before = used.GetAllocator().Capacity();
    ASSERT_TRUE(mcph::json_bounds::parse(used, R"({"a":"b"})"));
    EXPECT_EQ(std::string(used["a"].GetString()), "b");
    EXPECT_GE(used.GetAllocator().Capacity(), before);  // the same pool, chunks kept

    const std::string big = "[\"" + std::string(200000, 'z') + "\",\"" + std::string(300000, 'y') + "\"]";
    Json large;
    ASSERT_TRUE(mcph::json_bounds::parse(large, big));
    EXPECT_EQ(large[0].GetStringLength(), 200000u);
    EXPECT_EQ(large[1].GetStringLength(), 300000u);
}

}  // namespace
