// json_writer::Writer writes exactly what rapidjson::Writer writes (default flags), with strings
// copied in runs found by a 16-byte scan: every byte value, at every offset around the 16-byte
// steps, in values and keys, raw values, and whole documents.
#include <mcph/json.hpp>
#include <mcph/json_writer.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {

template <class W>
std::string write_string_with(const std::string& s, bool as_key) {
    rapidjson::StringBuffer buffer;
    W w(buffer);
    if (!as_key) {
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    } else {
        w.StartObject();
        w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
        w.Int(1);
        w.EndObject();
    }
    return {buffer.GetString(), buffer.GetSize()};
}

void expect_same(const std::string& s) {
    using Reference = rapidjson::Writer<rapidjson::StringBuffer>;
    using Ours = mcph::json_writer::Writer<rapidjson::StringBuffer>;
    for (bool key : {false, true})
        ASSERT_EQ(write_string_with<Ours>(s, key), write_string_with<Reference>(s, key))
            << "string of " << s.size() << " bytes" << (key ? " as a key" : "");
}

TEST(JsonWriter, EveryByteValueAtEveryOffsetAroundTheScanStep) {
    for (int byte = 0; byte < 256; ++byte) {
        for (std::size_t length : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 48u}) {
            for (std::size_t at = 0; at < length; ++at) {
                std::string s(length, 'a');
                s[at] = static_cast<char>(byte);
                expect_same(s);
            }
        }
    }
}

TEST(JsonWriter, EmptyRunsOfEscapesAndUtf8) {
    expect_same("");
    expect_same(std::string(40, '"'));
    expect_same(std::string(40, '\\'));
    expect_same(std::string(40, '\x1f') + std::string(40, '\x7f'));
    expect_same(std::string("\0\0\0", 3));
    expect_same("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 and an ESC \x1b[0m here");
}

TEST(JsonWriter, RandomStringsMatchTheReference) {
    std::mt19937 rng(20261202);
    std::uniform_int_distribution<int> byte(0, 255), length(0, 300);
    for (int i = 0; i < 2000; ++i) {
        std::string s(static_cast<std::size_t>(length(rng)), '\0');
        for (char& c : s) c = static_cast<char>(byte(rng) < 200 ? 'a' + byte(rng) % 26 : byte(rng));
        expect_same(s);
    }
}

TEST(JsonWriter, DocumentsAndRawValuesMatchTheReference) {
    mcph::Json doc = mcph::parse_json(
        R"({"a":[1,-2,3.5,true,false,null,{"b":"x\ny\u0001z\"q\\"}],"long":")" + std::string(5000, 'l') +
        R"(","u":"\u00e9\u20ac","e":{},"f":[]})");
    rapidjson::StringBuffer ours_buffer, reference_buffer;
    mcph::json_writer::Writer<rapidjson::StringBuffer> ours(ours_buffer);
    rapidjson::Writer<rapidjson::StringBuffer> reference(reference_buffer);
    doc.Accept(ours);       // json-bounds-ok: a fixed, shallow document
    doc.Accept(reference);  // json-bounds-ok: a fixed, shallow document
    EXPECT_EQ(std::string(ours_buffer.GetString()), std::string(reference_buffer.GetString()));

    rapidjson::StringBuffer raw_ours, raw_reference;
    mcph::json_writer::Writer<rapidjson::StringBuffer> w1(raw_ours);
    rapidjson::Writer<rapidjson::StringBuffer> w2(raw_reference);
    w1.StartArray();
    w1.RawValue("{\"k\":[1,2]}", 11, rapidjson::kObjectType);
    w1.RawValue("7", 1, rapidjson::kNumberType);
    w1.EndArray();
    w2.StartArray();
    w2.RawValue("{\"k\":[1,2]}", 11, rapidjson::kObjectType);
    w2.RawValue("7", 1, rapidjson::kNumberType);
    w2.EndArray();
    EXPECT_EQ(std::string(raw_ours.GetString()), std::string(raw_reference.GetString()));
    EXPECT_EQ(std::string(raw_ours.GetString()), "[{\"k\":[1,2]},7]");
}

}  // namespace
