// A library the host opens on first use (host/src/dynload/) that is not installed, or lacks a
// function this build calls, is an installation problem: it is said as one (a typed error naming
// the library and the loader's reason), not a crash, and a later use tries again.
#include "dynload/on_demand_library.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::dynload::OnDemandLibrary;

std::string failure_of(OnDemandLibrary& library, const char* symbol, mcph::ErrorKind* kind = nullptr) {
    try {
        library.symbol(symbol);
    } catch (const mcph::Error& e) {
        if (kind) *kind = e.kind();
        return e.what();
    }
    return "";
}

TEST(OnDemandLibrary, AMissingLibraryIsATypedErrorNamingItAndWhoNeedsIt) {
    OnDemandLibrary library("libmcph-test-not-installed.so.7", "mcph shell");
    mcph::ErrorKind kind{};
    const std::string why = failure_of(library, "anything", &kind);
    EXPECT_EQ(kind, mcph::ErrorKind::Plugin);
    EXPECT_NE(why.find("cannot load libmcph-test-not-installed.so.7"), std::string::npos) << why;
    EXPECT_NE(why.find("a dependency of mcph shell"), std::string::npos) << why;
    EXPECT_NE(why.find("No such file"), std::string::npos) << "the loader's reason: " << why;
    EXPECT_FALSE(library.opened());
    EXPECT_EQ(failure_of(library, "anything"), why) << "a later use tries again, and says the same";
}

TEST(OnDemandLibrary, AMissingFunctionNamesTheLibraryAndTheFunction) {
    OnDemandLibrary library("libc.so.6");
    EXPECT_NE(library.symbol("strlen"), nullptr);
    EXPECT_TRUE(library.opened());
    const std::string why = failure_of(library, "mcph_test_no_such_function");
    EXPECT_NE(why.find("libc.so.6 has no symbol mcph_test_no_such_function"), std::string::npos) << why;
}

}  // namespace
