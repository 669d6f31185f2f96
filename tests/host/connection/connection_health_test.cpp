#include "connection/connection_health.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mcph::connection::ConnectionHealth;
using mcph::connection::FailureMeaning;
using Action = ConnectionHealth::Action;
using Clock = ConnectionHealth::Clock;

enum class Ev { Terminal, Other, Unknown, ProbeAlive, ProbeDead, Reset };

struct Step {
    Ev event;
    int at_seconds;
    Action expected;
};

const char* name(Action a) {
    switch (a) {
        case Action::None: return "None";
        case Action::Probe: return "Probe";
        case Action::Reconnect: return "Reconnect";
    }
    return "?";
}

Action apply(ConnectionHealth& h, const Step& s) {
    Clock::time_point now = Clock::time_point{} + std::chrono::seconds(s.at_seconds);
    switch (s.event) {
        case Ev::Terminal: return h.record_failure(FailureMeaning::LinkBroken, now);
        case Ev::Other: return h.record_failure(FailureMeaning::ServerAnswered, now);
        case Ev::Unknown: return h.record_failure(FailureMeaning::Unknown, now);
        case Ev::ProbeAlive: return h.probe_result(true, now);
        case Ev::ProbeDead: return h.probe_result(false, now);
        case Ev::Reset: h.reset(); return Action::None;
    }
    return Action::None;
}

struct Case {
    const char* name;
    std::vector<Step> steps;
};

constexpr Ev T = Ev::Terminal, N = Ev::Other, U = Ev::Unknown, Alive = Ev::ProbeAlive, Dead = Ev::ProbeDead, R = Ev::Reset;
constexpr Action None = Action::None, Probe = Action::Probe, Reconnect = Action::Reconnect;

TEST(ConnectionHealth, Sequences) {
    const Case cases[] = {
        {"three terminal in a row reconnect (the seed's rule)", {{T, 0, None}, {T, 1, None}, {T, 2, Reconnect}}},
        {"a non-terminal error breaks the run, the window still fills",
         {{T, 0, None}, {T, 1, None}, {N, 2, None}, {T, 3, Probe}}},
        {"alternating T/N: the plain counter never fires, the window asks for a probe",
         {{T, 0, None}, {N, 1, None}, {T, 2, None}, {N, 3, None}, {T, 4, Probe}}},
        {"probe fails → reconnect", {{T, 0, None}, {N, 1, None}, {T, 2, None}, {N, 3, None}, {T, 4, Probe},
                                     {Dead, 5, Reconnect}}},
        {"probe succeeds → window cleared, three more needed",
         {{T, 0, None}, {N, 1, None}, {T, 2, None}, {N, 3, None}, {T, 4, Probe}, {Alive, 5, None},
          {T, 6, None}, {N, 7, None}, {T, 8, None}, {N, 9, None}, {T, 10, Probe}}},
        {"no second probe while one is outstanding",
         {{T, 0, None}, {N, 1, None}, {T, 2, None}, {N, 3, None}, {T, 4, Probe}, {N, 5, None}, {T, 6, None},
          {N, 7, None}, {T, 8, None}, {Alive, 9, None}}},
        {"a run of terminal errors reconnects even while a probe is outstanding",
         {{T, 0, None}, {N, 1, None}, {T, 2, None}, {N, 3, None}, {T, 4, Probe}, {T, 5, None}, {T, 6, Reconnect},
          {Dead, 7, None}}},
        {"errors spread wider than the window never probe",
         {{T, 0, None}, {N, 1, None}, {T, 30, None}, {N, 31, None}, {T, 60, None}, {N, 61, None}, {T, 90, None}}},
        {"an error exactly one window old has left it", {{T, 0, None}, {N, 1, None}, {T, 59, None}, {N, 59, None},
                                                         {T, 60, None}}},
        {"a probe answer nobody asked for is ignored", {{Alive, 0, None}, {Dead, 1, None}, {T, 2, None}}},
        {"reset forgets the run, the window and the outstanding probe",
         {{T, 0, None}, {N, 1, None}, {T, 2, None}, {N, 3, None}, {T, 4, Probe}, {R, 5, None}, {Dead, 6, None},
          {T, 7, None}, {T, 8, None}, {N, 9, None}, {T, 10, Probe}}},
        {"after reconnect the state is fresh", {{T, 0, None}, {T, 1, None}, {T, 2, Reconnect}, {T, 3, None},
                                                {T, 4, None}, {T, 5, Reconnect}}},
        {"non-terminal errors alone never act", {{N, 0, None}, {N, 1, None}, {N, 2, None}, {N, 3, None}}},
        {"a failure that proves nothing neither counts nor breaks the run",
         {{T, 0, None}, {U, 1, None}, {T, 2, None}, {U, 3, None}, {T, 4, Reconnect}}},
        {"unknown failures alone never act", {{U, 0, None}, {U, 1, None}, {U, 2, None}, {U, 3, None}}},
    };
    for (const Case& c : cases) {
        ConnectionHealth health;
        for (std::size_t i = 0; i < c.steps.size(); ++i) {
            Action got = apply(health, c.steps[i]);
            EXPECT_EQ(got, c.steps[i].expected)
                << c.name << ": step " << i << " got " << name(got) << ", want " << name(c.steps[i].expected);
        }
    }
}

TEST(ConnectionHealth, ThresholdsComeFromSettings) {
    ConnectionHealth::Settings s;
    s.consecutive_threshold = 1;
    ConnectionHealth eager(s);
    EXPECT_EQ(eager.record_failure(FailureMeaning::LinkBroken, Clock::time_point{}), Action::Reconnect);

    s.consecutive_threshold = 10;
    s.window_threshold = 2;
    s.window = std::chrono::seconds(5);
    ConnectionHealth windowed(s);
    Clock::time_point t{};
    EXPECT_EQ(windowed.record_failure(FailureMeaning::LinkBroken, t), Action::None);
    EXPECT_EQ(windowed.record_failure(FailureMeaning::LinkBroken, t + std::chrono::seconds(6)), Action::None) << "first one left the window";
    EXPECT_EQ(windowed.record_failure(FailureMeaning::LinkBroken, t + std::chrono::seconds(7)), Action::Probe);
    EXPECT_TRUE(windowed.probe_outstanding());
}

TEST(ConnectionHealth, InvalidSettingsAreAUsageError) {
    for (auto mutate : {+[](ConnectionHealth::Settings& s) { s.consecutive_threshold = 0; },
                        +[](ConnectionHealth::Settings& s) { s.window_threshold = -1; },
                        +[](ConnectionHealth::Settings& s) { s.window = std::chrono::seconds(0); }}) {
        ConnectionHealth::Settings s;
        mutate(s);
        try {
            ConnectionHealth h(s);
            ADD_FAILURE() << "accepted";
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        }
    }
}

}  // namespace
