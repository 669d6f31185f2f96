// Issue #16: a message the host describes with its facts is not scanned again on send.
#include "jsonrpc_shape.hpp"
#include "outgoing.hpp"

#include <gtest/gtest.h>

namespace {

using mcph::http::inspect_message_count;
using mcph::http::outgoing_command;
using mcph::plugin::MessageFacts;
using Ids = std::vector<std::string>;

constexpr size_t kCap = size_t{4} << 20;

std::string big_request(const std::string& id_json) {
    return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" +
           std::string(size_t{1} << 20, 'x') + R"("}}})";
}

TEST(OutgoingCommand, FactsSpareTheScanOfA1MiBRequest) {
    const std::string message = big_request("7");
    MessageFacts facts;
    facts.id = "7";
    facts.method = "tools/call";
    const std::uint64_t before = inspect_message_count();
    mcph::http::Command c = outgoing_command(message, &facts, kCap);
    EXPECT_EQ(inspect_message_count(), before);
    EXPECT_EQ(c.request_ids, Ids{"7"});
    EXPECT_EQ(c.payload, message);
    // A notification: no ids, no scan.
    MessageFacts note;
    note.method = "notifications/initialized";
    EXPECT_TRUE(outgoing_command(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", &note, kCap).request_ids.empty());
    EXPECT_EQ(inspect_message_count(), before);
}

TEST(OutgoingCommand, StringIdsFromFactsAreSpelledAsResponsesWillBe) {
    MessageFacts facts;
    facts.id = R"("a\u0041")";
    facts.method = "ping";
    EXPECT_EQ(outgoing_command(R"({"jsonrpc":"2.0","id":"a\u0041","method":"ping"})", &facts, kCap).request_ids,
              Ids{R"("aA")"});
    EXPECT_EQ(mcph::http::canonical_request_id("12"), "12");
    EXPECT_EQ(mcph::http::canonical_request_id("-0"), "0");
    EXPECT_EQ(mcph::http::canonical_request_id("{}"), "");
}

TEST(OutgoingCommand, WithoutFactsTheBodyIsScannedAndChecked) {
    const std::uint64_t before = inspect_message_count();
    mcph::http::Command c = outgoing_command(big_request(R"("r-1")"), nullptr, kCap);
    EXPECT_EQ(inspect_message_count(), before + 1);
    EXPECT_EQ(c.request_ids, Ids{R"("r-1")"});
    EXPECT_THROW(outgoing_command("{\"id\":1", nullptr, kCap), mcph::plugin::Error);
    EXPECT_THROW(outgoing_command("42", nullptr, kCap), mcph::plugin::Error);
    EXPECT_THROW(outgoing_command(big_request("1"), nullptr, 1000), mcph::plugin::Error);  // maxMessageBytes
    // Facts that cannot describe it: a response (no method), notifications/cancelled (its requestId).
    MessageFacts response;
    EXPECT_EQ(outgoing_command(R"({"jsonrpc":"2.0","id":3,"result":{}})", &response, kCap).request_ids, Ids{});
    MessageFacts cancel;
    cancel.method = "notifications/cancelled";
    mcph::http::Command n = outgoing_command(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}})", &cancel, kCap);
    EXPECT_EQ(n.cancelled_ids, Ids{"5"});
    EXPECT_EQ(inspect_message_count(), before + 5);
    // A facts id that is not an id: the body decides.
    MessageFacts odd;
    odd.id = "{";
    odd.method = "ping";
    EXPECT_EQ(outgoing_command(R"({"jsonrpc":"2.0","id":8,"method":"ping"})", &odd, kCap).request_ids, Ids{"8"});
}

}  // namespace
