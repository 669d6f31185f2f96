// for_each_page_item: follows nextCursor defensively. A fake server is a map cursor -> page.
#include "session/pagination.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace {

using mcph::Error;
using mcph::ErrorKind;
using mcph::Json;
using mcph::JsonValue;

struct Walk {
    std::vector<std::string> items;     // names, in delivery order
    std::vector<std::string> cursors;   // cursors requested, in order
    std::vector<std::string> warnings;
};

Walk walk(const std::map<std::string, std::string>& pages, mcph::session::PaginationLimits limits = {}) {
    Walk w;
    mcph::session::for_each_page_item(
        "tools/list from 'srv'", "tools",
        [&](const std::string& cursor) {
            w.cursors.push_back(cursor);
            auto it = pages.find(cursor);
            if (it == pages.end()) throw Error(ErrorKind::Remote, "no such cursor: " + cursor);
            return mcph::parse_json(it->second);
        },
        [](const JsonValue& item) -> std::optional<std::string> {
            if (item.IsObject() && item.HasMember("name") && item["name"].IsString()) return std::string(item["name"].GetString());
            return std::nullopt;
        },
        [&](const JsonValue& item) {
            w.items.push_back(item.IsObject() && item.HasMember("name") ? item["name"].GetString() : mcph::to_json(item));
        },
        [&](const std::string& warning) { w.warnings.push_back(warning); }, limits);
    return w;
}

using Strings = std::vector<std::string>;

TEST(Pagination, SinglePageWithoutCursor) {
    Walk w = walk({{"", R"({"tools":[{"name":"a"},{"name":"b"}]})"}});
    EXPECT_EQ(w.items, (Strings{"a", "b"}));
    EXPECT_EQ(w.cursors, (Strings{""}));
    EXPECT_TRUE(w.warnings.empty());
}

TEST(Pagination, FollowsCursorsAcrossPages) {
    Walk w = walk({{"", R"({"tools":[{"name":"a"}],"nextCursor":"p2"})"},
                   {"p2", R"({"tools":[{"name":"b"},{"name":"c"}],"nextCursor":"p3"})"},
                   {"p3", R"({"tools":[],"nextCursor":"p4"})"},
                   {"p4", R"({"tools":[{"name":"d"}]})"}});
    EXPECT_EQ(w.items, (Strings{"a", "b", "c", "d"}));
    EXPECT_EQ(w.cursors, (Strings{"", "p2", "p3", "p4"}));
    EXPECT_TRUE(w.warnings.empty());
}

TEST(Pagination, NullCursorEnds) {
    Walk w = walk({{"", R"({"tools":[{"name":"a"}],"nextCursor":null})"}});
    EXPECT_EQ(w.items, (Strings{"a"}));
    EXPECT_EQ(w.cursors.size(), 1u);
}

TEST(Pagination, EmptyStringCursorEnds) {
    Walk w = walk({{"", R"({"tools":[{"name":"a"}],"nextCursor":""})"}});
    EXPECT_EQ(w.items, (Strings{"a"}));
    EXPECT_EQ(w.cursors, (Strings{""})) << "an empty cursor must not be requested as a new page";
    EXPECT_TRUE(w.warnings.empty());
}

TEST(Pagination, RepeatedCursorStopsAndWarnsKeepingItems) {
    // p2 points back to p2: a server whose cursor does not advance.
    Walk w = walk({{"", R"({"tools":[{"name":"a"}],"nextCursor":"p2"})"},
                   {"p2", R"({"tools":[{"name":"b"}],"nextCursor":"p2"})"}});
    EXPECT_EQ(w.items, (Strings{"a", "b"}));
    EXPECT_EQ(w.cursors, (Strings{"", "p2"}));
    ASSERT_EQ(w.warnings.size(), 1u);
    EXPECT_NE(w.warnings[0].find("repeated cursor 'p2'"), std::string::npos) << w.warnings[0];
    EXPECT_NE(w.warnings[0].find("tools/list from 'srv'"), std::string::npos) << w.warnings[0];
}

TEST(Pagination, CycleOfCursorsIsDetected) {
    Walk w = walk({{"", R"({"tools":[{"name":"a"}],"nextCursor":"x"})"},
                   {"x", R"({"tools":[{"name":"b"}],"nextCursor":"y"})"},
                   {"y", R"({"tools":[{"name":"c"}],"nextCursor":"x"})"}});
    EXPECT_EQ(w.items, (Strings{"a", "b", "c"}));
    EXPECT_EQ(w.cursors, (Strings{"", "x", "y"}));
    EXPECT_EQ(w.warnings.size(), 1u);
}

TEST(Pagination, PageCapStopsAndWarns) {
    // Every page advances to a fresh cursor forever.
    std::map<std::string, std::string> pages;
    for (int i = 0; i < 50; ++i) {
        const std::string cursor = i == 0 ? "" : "c" + std::to_string(i);
        pages[cursor] = R"({"tools":[{"name":"t)" + std::to_string(i) + R"("}],"nextCursor":"c)" + std::to_string(i + 1) + "\"}";
    }
    Walk w = walk(pages, mcph::session::PaginationLimits{5});
    EXPECT_EQ(w.cursors.size(), 5u);
    EXPECT_EQ(w.items, (Strings{"t0", "t1", "t2", "t3", "t4"}));
    ASSERT_EQ(w.warnings.size(), 1u);
    EXPECT_NE(w.warnings[0].find("more than 5 pages"), std::string::npos) << w.warnings[0];
}

TEST(Pagination, DuplicateItemsAcrossPagesAreDropped) {
    Walk w = walk({{"", R"({"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"2"})"},
                   {"2", R"({"tools":[{"name":"b"},{"name":"c"},{"name":"a"}]})"}});
    EXPECT_EQ(w.items, (Strings{"a", "b", "c"}));
}

TEST(Pagination, ItemsWithoutKeyAreAlwaysKept) {
    Walk w = walk({{"", R"({"tools":[5,5,{"noname":1}]})"}});
    EXPECT_EQ(w.items.size(), 3u);
}

struct MalformedCase {
    const char* name;
    const char* page;
    const char* message_contains;
};

const MalformedCase kMalformed[] = {
    {"missing items array", R"({"nextCursor":"x"})", "no 'tools' array"},
    {"items not an array", R"({"tools":{"name":"a"}})", "no 'tools' array"},
    {"result not an object", R"([{"name":"a"}])", "not an object"},
    {"non-string nextCursor", R"({"tools":[],"nextCursor":5})", "nextCursor is not a string"},
    {"object nextCursor", R"({"tools":[],"nextCursor":{}})", "nextCursor is not a string"},
};

TEST(Pagination, MalformedPagesThrowProtocol) {
    for (const MalformedCase& c : kMalformed) {
        SCOPED_TRACE(c.name);
        try {
            walk({{"", c.page}});
            ADD_FAILURE() << "expected Error(Protocol)";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Protocol);
            EXPECT_NE(std::string(e.what()).find(c.message_contains), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("tools/list from 'srv'"), std::string::npos) << e.what();
        }
    }
}

TEST(Pagination, FetchErrorsPropagate) {
    try {
        walk({{"", R"({"tools":[],"nextCursor":"gone"})"}});
        ADD_FAILURE() << "expected the fetch error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Remote);
    }
}

}  // namespace
