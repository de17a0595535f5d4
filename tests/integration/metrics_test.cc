// protond --metrics-listen against a real daemon: GET /metrics over a plain socket while and after
// the sample workload runs under the shim, the values checked against what the workload wrote,
// and promtool's verdict on the text where Debian's prometheus package is installed.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kPromtool[] = "/usr/bin/promtool";

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_.Start({"--metrics-listen", "127.0.0.1:0"});
    // Written before the socket answers, so it is in the log by now.
    port_ = daemon_.LoggedPort("metrics port ");
    ASSERT_NE(port_, 0) << ReadFile(daemon_.log_path());
  }

  std::string Exchange(const std::string& request) { return ExchangeOnLoopback(port_, request); }

  // The body of GET /metrics, after checking that it was answered with 200.
  std::string Scrape() {
    const std::string answer = Exchange("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
    EXPECT_THAT(answer,
                HasSubstr("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
    const size_t body = answer.find("\r\n\r\n");
    return body == std::string::npos ? "" : answer.substr(body + 4);
  }

  static double Sample(const std::string& text, const std::string& series) {
    return MetricSample(text, series);
  }

  // Scrapes until `series` has `value` (5 s at most); the last text scraped.
  std::string ScrapeUntil(const std::string& series, double value) {
    std::string text;
    for (int i = 0; i < 100 && Sample(text = Scrape(), series) != value; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return text;
  }

  // protonctl run --name `name` of the sample workload (20 steps, 4 threads x 50 loads).
  void RunSampleWorkload(const std::string& name) {
    const Completed run = RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "run",
                                    "--name", name, "--", BinDir() + "/sample_workload"},
                                   dir_);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
  int port_ = 0;
};

TEST_F(MetricsTest, ASessionsRecordsAreCountedUnderItsEscapedName) {
  RunSampleWorkload("say \"hi\" \\o/");
  const std::string text = Scrape();
  const std::string labels = R"({session="1",name="say \"hi\" \\o/"})";
  EXPECT_EQ(Sample(text, "protond_session_records_total" + labels),
            static_cast<double>(SampleWorkloadRecords(20, 4, 50)))
      << text;
  EXPECT_EQ(Sample(text, "protond_session_dropped_records_total" + labels), 0);
  EXPECT_EQ(Sample(text, "protond_sessions_running"), 0);
  EXPECT_EQ(Sample(text, "protond_commit_failures_total"), 0);
  // The session's records were committed at least once, each commit counted in +Inf.
  const double commits = Sample(text, "protond_commit_duration_seconds_count");
  EXPECT_GE(commits, 1);
  EXPECT_EQ(Sample(text, R"(protond_commit_duration_seconds_bucket{le="+Inf"})"), commits);
  EXPECT_GT(Sample(text, "protond_commit_duration_seconds_sum"), 0);
  // The store holds at least the database's first page; the log may come and go with checkpoints.
  struct stat db;
  ASSERT_EQ(stat((daemon_.state_dir() + "/protond.db").c_str(), &db), 0);
  EXPECT_GE(Sample(text, "protond_store_size_bytes"), static_cast<double>(db.st_size));
}

TEST_F(MetricsTest, ARunningSessionAndItsConnectedProcessAreCounted) {
  // The shim registers the workload with no session: connected, not recording.
  const std::string task_dir = MakeTempDir();
  const pid_t task = Spawn(
      {BinDir() + "/sample_workload", "--steps", "1000", "--step-ms", "10"}, task_dir,
      {{{"LD_PRELOAD", BinDir() + "/libprotond_shim.so"}, {"PROTOND_SOCKET", daemon_.socket()}}});
  std::string text = ScrapeUntil("protond_processes_connected", 1);
  EXPECT_EQ(Sample(text, "protond_processes_connected"), 1) << text;
  const Completed start = RunToEnd({BinDir() + "/protonctl", "--socket", daemon_.socket(), "start",
                                    "--pid", std::to_string(task), "--name", "live"},
                                   dir_);
  ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
  text = ScrapeUntil("protond_sessions_running", 1);
  EXPECT_EQ(Sample(text, "protond_sessions_running"), 1) << text;
  // Records arrive with each commit, 100 ms apart.
  text = Scrape();
  for (int i = 0;
       i < 100 && Sample(text, R"(protond_session_records_total{session="1",name="live"})") <= 0;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    text = Scrape();
  }
  EXPECT_GT(Sample(text, R"(protond_session_records_total{session="1",name="live"})"), 0) << text;
  kill(task, SIGKILL);
  waitpid(task, nullptr, 0);
  text = ScrapeUntil("protond_processes_connected", 0);
  EXPECT_EQ(Sample(text, "protond_processes_connected"), 0) << text;
  // A session whose processes have all exited ends by itself.
  text = ScrapeUntil("protond_sessions_running", 0);
  EXPECT_EQ(Sample(text, "protond_sessions_running"), 0) << text;
}

TEST_F(MetricsTest, OnlyGetMetricsIsServed) {
  EXPECT_THAT(Exchange("GET / HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_THAT(Exchange("POST /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
}

TEST_F(MetricsTest, PromtoolAcceptsTheText) {
  if (access(kPromtool, X_OK) != 0) {
    GTEST_SKIP() << kPromtool << " is not installed (Debian's prometheus package has it; "
                 << "scripts/install-deps.sh installs it): the text was not checked by promtool";
  }
  RunSampleWorkload("promtool \"check\"");
  const std::string path = dir_ + "/metrics.txt";
  std::ofstream(path) << Scrape();
  const Completed check =
      RunToEnd({"/bin/sh", "-c", std::string(kPromtool) + " check metrics < " + path}, dir_);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << ReadFile(path);
  EXPECT_EQ(check.out + check.err, "");
}

}  // namespace
}  // namespace protond::testing
