// classify_failure decides on the typed fields of a transport failure (category, errno, HTTP
// status) and never on its text.
#include "connection/terminal_errors.hpp"
#include "transport/transport_channel.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include <cerrno>
#include <string>

namespace {

using mcph::connection::classify_failure;
using mcph::connection::FailureMeaning;
using mcph::connection::is_terminal_failure;
using mcph::transport::Failure;

Failure failure(mcph_failure_category category, int os_error = 0, int http_status = 0) {
    Failure f;
    f.category = category;
    f.os_error = os_error;
    f.http_status = http_status;
    return f;
}

const char* meaning_name(FailureMeaning m) {
    switch (m) {
        case FailureMeaning::LinkBroken: return "LinkBroken";
        case FailureMeaning::ServerAnswered: return "ServerAnswered";
        case FailureMeaning::Unknown: return "Unknown";
    }
    return "?";
}

// Every category of plugin_api.h, with what it means for the link and the seed signal it stands for.
TEST(TerminalErrors, EachCategoryHasItsMeaning) {
    const struct {
        mcph_failure_category category;
        FailureMeaning meaning;
        const char* signal;
    } cases[] = {
        {MCPH_FAILURE_RESET, FailureMeaning::LinkBroken, "terminated"},
        {MCPH_FAILURE_TIMEOUT, FailureMeaning::LinkBroken, "ETIMEDOUT"},
        {MCPH_FAILURE_REFUSED, FailureMeaning::LinkBroken, "ECONNREFUSED"},
        {MCPH_FAILURE_UNREACHABLE, FailureMeaning::LinkBroken, "EHOSTUNREACH"},
        {MCPH_FAILURE_TLS, FailureMeaning::LinkBroken, "TLS"},
        {MCPH_FAILURE_PROCESS_EXITED, FailureMeaning::LinkBroken, "terminated"},
        {MCPH_FAILURE_PROTOCOL, FailureMeaning::ServerAnswered, "PROTOCOL"},
        {MCPH_FAILURE_SESSION_EXPIRED, FailureMeaning::ServerAnswered, "SESSION_EXPIRED"},
        {MCPH_FAILURE_AUTH, FailureMeaning::ServerAnswered, "AUTH"},
        {MCPH_FAILURE_HTTP_STATUS, FailureMeaning::ServerAnswered, "HTTP_STATUS"},
        {MCPH_FAILURE_OTHER, FailureMeaning::Unknown, "OTHER"},
    };
    for (const auto& c : cases) {
        const auto v = classify_failure(failure(c.category));
        EXPECT_EQ(v.meaning, c.meaning) << "category " << c.category << " is " << meaning_name(v.meaning);
        EXPECT_EQ(v.signal, c.signal) << "category " << c.category;
        EXPECT_EQ(is_terminal_failure(failure(c.category)), c.meaning == FailureMeaning::LinkBroken);
    }
}

// An errno names the seed signal more precisely, and rescues a plugin that only said OTHER.
TEST(TerminalErrors, AnErrnoNamesTheSignalAndMakesOtherTerminal) {
    const struct {
        mcph_failure_category category;
        int os_error;
        const char* signal;
    } cases[] = {
        {MCPH_FAILURE_RESET, EPIPE, "EPIPE"},
        {MCPH_FAILURE_RESET, ECONNRESET, "ECONNRESET"},
        {MCPH_FAILURE_TIMEOUT, ETIMEDOUT, "ETIMEDOUT"},
        {MCPH_FAILURE_UNREACHABLE, ENETUNREACH, "EHOSTUNREACH"},
        {MCPH_FAILURE_OTHER, ECONNRESET, "ECONNRESET"},
        {MCPH_FAILURE_OTHER, EPIPE, "EPIPE"},
        {MCPH_FAILURE_OTHER, ECONNREFUSED, "ECONNREFUSED"},
        {MCPH_FAILURE_OTHER, EHOSTUNREACH, "EHOSTUNREACH"},
        {MCPH_FAILURE_OTHER, ETIMEDOUT, "ETIMEDOUT"},
    };
    for (const auto& c : cases) {
        const auto v = classify_failure(failure(c.category, c.os_error));
        EXPECT_EQ(v.meaning, FailureMeaning::LinkBroken) << c.category << "/" << c.os_error;
        EXPECT_EQ(v.signal, c.signal) << c.category << "/" << c.os_error;
    }
    // An errno that says nothing about the link leaves OTHER unknown.
    EXPECT_EQ(classify_failure(failure(MCPH_FAILURE_OTHER, ENOENT)).meaning, FailureMeaning::Unknown);
    EXPECT_EQ(classify_failure(failure(MCPH_FAILURE_OTHER, EMFILE)).meaning, FailureMeaning::Unknown);
}

// A child's exit status is not an errno: "exited with 32" is not EPIPE (32).
TEST(TerminalErrors, AnExitStatusIsNotReadAsAnErrno) {
    const auto v = classify_failure(failure(MCPH_FAILURE_PROCESS_EXITED, EPIPE));
    EXPECT_EQ(v.meaning, FailureMeaning::LinkBroken);
    EXPECT_EQ(v.signal, "terminated");
}

// The server answering with an error status is its answer, whatever the status (a 502 from a
// proxy included): the link carried the round trip.
TEST(TerminalErrors, AnHttpErrorStatusIsTheServersAnswer) {
    for (int status : {400, 401, 404, 500, 502, 503, 504})
        EXPECT_EQ(classify_failure(failure(MCPH_FAILURE_HTTP_STATUS, 0, status)).meaning, FailureMeaning::ServerAnswered)
            << status;
}

// The text is for people: no phrase makes a failure terminal, none makes it harmless.
TEST(TerminalErrors, TheMessageIsNeverRead) {
    Failure scary = failure(MCPH_FAILURE_OTHER);
    scary.message = "Connection reset by peer; ECONNRESET; broken pipe; SSE stream disconnected";
    scary.stderr_tail = "ECONNREFUSED";
    scary.body = "terminated";
    EXPECT_EQ(classify_failure(scary).meaning, FailureMeaning::Unknown);

    Failure calm = failure(MCPH_FAILURE_RESET);
    calm.message = "all is well";
    EXPECT_EQ(classify_failure(calm).meaning, FailureMeaning::LinkBroken);
}

// A category newer than this host (99, as a newer plugin would write it through the C ABI) arrives
// as OTHER; then only an errno can make it count.
TEST(TerminalErrors, AnUnknownCategoryIsOther) {
    mcph_failure raw{};
    raw.struct_size = sizeof raw;
    const int future = 99;
    std::memcpy(&raw.category, &future, sizeof future);
    EXPECT_EQ(mcph::transport::failure_from_c(&raw).category, MCPH_FAILURE_OTHER);
    EXPECT_EQ(classify_failure(mcph::transport::failure_from_c(&raw)).meaning, FailureMeaning::Unknown);
    raw.os_error = ECONNRESET;
    EXPECT_EQ(classify_failure(mcph::transport::failure_from_c(&raw)).meaning, FailureMeaning::LinkBroken);
}

}  // namespace
