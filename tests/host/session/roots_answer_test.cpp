// roots/list as the router answers it: the application's callback wins, else the server's
// configured roots (an empty list answered as one), else the working directory; file_root's URI.
#include "session/client_request_router.hpp"
#include "session/server_requests.hpp"

#include <mcph/callbacks.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <vector>

namespace {

using mcph::Root;

std::string roots_answer(const mcph::ClientCallbacks& callbacks, const std::optional<std::vector<Root>>& configured) {
    mcph::session::ClientRequestRouter router("srv", callbacks, configured, {});
    return mcph::to_json(router.answer("roots/list", mcph::Json(rapidjson::kObjectType)));
}

TEST(RootsAnswer, CallbackThenConfiguredThenTheWorkingDirectory) {
    mcph::ClientCallbacks none;
    const std::vector<Root> configured{mcph::file_root("/srv/a b"), mcph::file_root("/srv/ü")};
    EXPECT_EQ(roots_answer(none, configured),
              R"({"roots":[{"uri":"file:///srv/a%20b","name":"a b"},{"uri":"file:///srv/%C3%BC","name":"ü"}]})");
    EXPECT_EQ(roots_answer(none, std::vector<Root>{}), R"({"roots":[]})");  // "no roots" stays no roots
    const auto cwd = std::filesystem::current_path();
    EXPECT_EQ(roots_answer(none, std::nullopt),
              R"({"roots":[{"uri":")" + mcph::detail::file_uri(cwd) + R"(","name":")" + cwd.filename().string() + R"("}]})");

    mcph::ClientCallbacks with_callback;
    std::string asked_for;
    with_callback.roots = [&asked_for](const std::string& server) {
        asked_for = server;
        return std::vector<Root>{mcph::file_root("/cli/root")};
    };
    EXPECT_EQ(roots_answer(with_callback, configured), R"({"roots":[{"uri":"file:///cli/root","name":"root"}]})");
    EXPECT_EQ(asked_for, "srv");
}

TEST(RootsAnswer, FileRootNamesTheLastComponent) {
    EXPECT_EQ(mcph::file_root("/srv/a/").name, "a");
    EXPECT_EQ(mcph::file_root("/srv/a/").uri, "file:///srv/a/");
    EXPECT_EQ(mcph::file_root("/").name, "");
    EXPECT_EQ(mcph::file_root("/").uri, "file:///");
    EXPECT_EQ(mcph::file_root("/x/100%#?").uri, "file:///x/100%25%23%3F");
}

}  // namespace
