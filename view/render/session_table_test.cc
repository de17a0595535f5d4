#include "view/render/session_table.h"

#include <stdlib.h>
#include <time.h>

#include "gtest/gtest.h"

namespace protond::view {
namespace {

class SessionTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

constexpr int64_t kNsPerSecond = 1'000'000'000;
// 2024-03-01 12:34:56 UTC.
constexpr int64_t kMarch1 = 1'709'296'496 * kNsPerSecond;

v1::Session StoppedSession() {
  v1::Session session;
  session.set_id(7);
  session.set_name("train-run");
  session.set_state(v1::Session::STOPPED);
  session.set_start_time_unix_ns(kMarch1 + 123);
  session.set_end_time_unix_ns(kMarch1 + 3661 * kNsPerSecond + 999'999'999);
  session.add_processes()->set_pid(100);
  session.add_processes()->set_pid(101);
  session.set_records(1234567);
  session.set_dropped_records(3);
  return session;
}

v1::Session RunningSession() {
  v1::Session session;
  session.set_id(12);
  session.set_name("ö");  // one terminal column, two bytes
  session.set_state(v1::Session::RUNNING);
  session.set_start_time_unix_ns(kMarch1 + 86400 * kNsPerSecond);
  session.set_records(0);
  return session;
}

TEST_F(SessionTableTest, EmptyListPrintsTheHeaderAlone) {
  EXPECT_EQ(RenderSessionTable({}), "ID  NAME  STATE  PROCESSES  START  END  RECORDS  DROPPED\n");
}

TEST_F(SessionTableTest, ColumnsAreAligned) {
  v1::ListSessionsResponse response;
  *response.add_sessions() = StoppedSession();
  *response.add_sessions() = RunningSession();
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME       STATE    PROCESSES  START                END                  "
            "RECORDS  DROPPED\n"
            " 7  train-run  stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3\n"
            "12  ö          running          0  2024-03-02 12:34:56  -                    "
            "      0        0\n");
}

TEST_F(SessionTableTest, AModeColumnComesLastWhenASessionHasAMode) {
  v1::ListSessionsResponse response;
  *response.add_sessions() = StoppedSession();
  *response.add_sessions() = RunningSession();
  response.mutable_sessions(1)->set_mode("pcsampling:interval=1024");
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME       STATE    PROCESSES  START                END                  "
            "RECORDS  DROPPED  MODE\n"
            " 7  train-run  stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3  -\n"
            "12  ö          running          0  2024-03-02 12:34:56  -                    "
            "      0        0  pcsampling:interval=1024\n");
}

TEST_F(SessionTableTest, AnOriginColumnMarksTheWindowsOfAlwaysOnProfiling) {
  v1::ListSessionsResponse response;
  *response.add_sessions() = StoppedSession();
  *response.add_sessions() = RunningSession();
  response.mutable_sessions(1)->set_always_on_window(true);
  response.mutable_sessions(1)->set_mode("pcsampling");
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME       STATE    PROCESSES  START                END                  "
            "RECORDS  DROPPED  ORIGIN  MODE\n"
            " 7  train-run  stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3  hand    -\n"
            "12  ö          running          0  2024-03-02 12:34:56  -                    "
            "      0        0  window  pcsampling\n");
}

TEST_F(SessionTableTest, UnnamedSessionShowsADash) {
  v1::ListSessionsResponse response;
  v1::Session* session = response.add_sessions();
  session->set_id(1);
  session->set_state(v1::Session::STATE_UNSPECIFIED);
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME  STATE    PROCESSES  START  END  RECORDS  DROPPED\n"
            " 1  -     unknown          0  -      -          0        0\n");
}

TEST_F(SessionTableTest, ProblemsOneLineEach) {
  v1::Session session = StoppedSession();
  EXPECT_EQ(RenderSessionProblems(session), "");
  session.add_problems("process 3: lane 0 corrupt at position 4096");
  session.add_problems("metric \"a\" changed type from double to int64");
  EXPECT_EQ(RenderSessionProblems(session),
            "  problem: process 3: lane 0 corrupt at position 4096\n"
            "  problem: metric \"a\" changed type from double to int64\n");
}

// A name stored before the daemon refused control characters, or a problem quoting a program's
// metric name, is shown escaped on its own line.
TEST_F(SessionTableTest, ControlCharactersAreShownNotObeyed) {
  v1::ListSessionsResponse response;
  v1::Session* session = response.add_sessions();
  *session = StoppedSession();
  session->set_name("a\nb\x1b[2J");
  session->add_problems("metric \"\x1b]0;x\x07\" changed type");
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME           STATE    PROCESSES  START                END                  "
            "RECORDS  DROPPED\n"
            " 7  a\\x0ab\\x1b[2J  stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3\n");
  EXPECT_EQ(RenderSessionProblems(*session), "  problem: metric \"\\x1b]0;x\\x07\" changed type\n");
}

// Wide characters take two columns each, so the columns after them line up on a terminal.
TEST_F(SessionTableTest, WideNamesArePaddedByTheirTerminalWidth) {
  v1::ListSessionsResponse response;
  *response.add_sessions() = StoppedSession();
  response.mutable_sessions(0)->set_name("学習");  // 4 columns, 2 code points
  *response.add_sessions() = StoppedSession();
  response.mutable_sessions(1)->set_name("run🚀");  // 5 columns, 4 code points
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME   STATE    PROCESSES  START                END                  "
            "RECORDS  DROPPED\n"
            " 7  学習   stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3\n"
            " 7  run🚀  stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3\n");
}

// U+202E would print the rest of the line right to left, columns and all.
TEST_F(SessionTableTest, BidiControlsAreShownNotObeyed) {
  v1::ListSessionsResponse response;
  *response.add_sessions() = StoppedSession();
  response.mutable_sessions(0)->set_name("a\u202eb");
  EXPECT_EQ(RenderSessionTable(response.sessions()),
            "ID  NAME      STATE    PROCESSES  START                END                  "
            "RECORDS  DROPPED\n"
            " 7  a\\u202eb  stopped          2  2024-03-01 12:34:56  2024-03-01 13:35:57  "
            "1234567        3\n");
}

TEST_F(SessionTableTest, FormatLocalTime) {
  EXPECT_EQ(FormatLocalTime(0), "-");
  EXPECT_EQ(FormatLocalTime(kMarch1), "2024-03-01 12:34:56");
  EXPECT_EQ(FormatLocalTime(-1), "1969-12-31 23:59:59");
}

}  // namespace
}  // namespace protond::view
