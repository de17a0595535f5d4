#include "cli/profile_commands.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "view/tree/share_shift.h"

namespace protond::cli {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
constexpr char kFixture[] = HATCHET_TESTDATA_DIR "/h100_proton.hatchet";

// Files never reach the daemon: this client is never connected.
client::Client& NoDaemon() {
  static client::Client client("/nonexistent/protond.sock");
  return client;
}

std::string Tree(const std::vector<std::string>& args) {
  absl::StatusOr<TreeArgs> parsed = ParseTreeArgs(args, kNow);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return parsed.status().ToString();
  absl::StatusOr<std::string> text = RenderTreeCommand(NoDaemon(), *parsed);
  return text.ok() ? *text : text.status().ToString();
}

std::string UsageError(const std::vector<std::string>& args) {
  return ParseTreeArgs(args, kNow).status().ToString();
}

TEST(ProfileCommandsTest, ParsesEveryTreeOption) {
  absl::StatusOr<TreeArgs> args = ParseTreeArgs(
      {"-m", "time/ms,util", "-d", "3", "-t", "0.5", "-i", "w_.*", "-f", "file_function",
       "--print-sorted", "--diff", "old.hatchet", "--mangled", "-l", "new.hatchet"},
      kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->profile, "new.hatchet");
  EXPECT_EQ(args->diff_profile, "old.hatchet");
  EXPECT_TRUE(args->list_metrics);
  EXPECT_EQ(args->view.metrics, "time/ms,util");
  EXPECT_EQ(args->view.depth, 3);
  EXPECT_EQ(args->view.threshold, 0.5);
  EXPECT_EQ(args->view.include, "w_.*");
  EXPECT_EQ(args->view.format, view::FrameFormat::kFileFunction);
  EXPECT_TRUE(args->view.print_sorted);
  EXPECT_EQ(args->view.kernel_names, view::KernelNames::kMangled);
  // proton-viewer's spellings too.
  args = ParseTreeArgs({"7", "--print_sorted", "-diff", "8", "--exclude", "x"}, kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->view.print_sorted);
  EXPECT_EQ(args->diff_profile, "8");
  EXPECT_EQ(args->view.exclude, "x");
  EXPECT_FALSE(args->follow);
  EXPECT_TRUE(ParseTreeArgs({"7", "--follow"}, kNow)->follow);
  args = ParseTreeArgs({"--job", "981", "-m", "time/ms", "-d", "3"}, kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->job, "981");
  EXPECT_EQ(args->view.metrics, "time/ms");
  EXPECT_EQ(args->view.depth, 3);
}

TEST(ProfileCommandsTest, ARangeOfWindowsAndTheRangeItIsComparedWith) {
  absl::StatusOr<TreeArgs> args =
      ParseTreeArgs({"--job", "981", "--since", "1h", "-d", "2", "--diff", "--since", "25h",
                     "--until", "24h", "-t", "10%"},
                    kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->window_range);
  EXPECT_TRUE(args->job.empty());  // not the fan-out view of the job's session
  EXPECT_EQ(args->windows.job, "981");
  EXPECT_EQ(args->windows.since, kNow - absl::Hours(1));
  EXPECT_EQ(args->windows.until, absl::InfiniteFuture());
  EXPECT_TRUE(args->diff_range);
  EXPECT_EQ(args->diff_windows.job, "981");
  EXPECT_EQ(args->diff_windows.since, kNow - absl::Hours(25));
  EXPECT_EQ(args->diff_windows.until, kNow - absl::Hours(24));
  EXPECT_DOUBLE_EQ(*args->view.threshold, 0.10);
  EXPECT_EQ(args->view.depth, 2);

  args = ParseTreeArgs({"--pid", "7", "--since", "2026-11-27T10:00:00Z"}, kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->windows.pid, 7u);
  EXPECT_FALSE(args->diff_range);
  EXPECT_FALSE(args->view.threshold.has_value());
  // A diff of ranges lists moves of 5 points by default.
  args = ParseTreeArgs({"--command", "train", "--diff", "--until", "24h"}, kNow);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->diff_windows.command, "train");
  EXPECT_DOUBLE_EQ(*args->view.threshold, view::kDefaultShareThreshold);
}

TEST(ProfileCommandsTest, BadRangesOfWindowsSayWhatIsWrong) {
  EXPECT_EQ(UsageError({"7", "--since", "1h"}),
            "INVALID_ARGUMENT: tree takes a profile (7) or a range of always-on windows, not both");
  EXPECT_EQ(UsageError({"--pid", "7", "--job", "9"}),
            "INVALID_ARGUMENT: --pid and --job cannot be used together");
  EXPECT_EQ(UsageError({"--pid", "7", "--since", "1h", "--until", "2h"}),
            "INVALID_ARGUMENT: --since '1h' must be before --until '2h': no window starts in "
            "between");
  EXPECT_EQ(UsageError({"--pid", "7", "--follow"}),
            "INVALID_ARGUMENT: a range of always-on windows takes no --follow, --rank or --diff "
            "PROFILE");
  EXPECT_EQ(UsageError({"--since", "1h", "--diff", "--since", "2h", "--pid", "7"}),
            "INVALID_ARGUMENT: --pid, --job and --command go before --diff: both ranges are of "
            "the same windows");
  EXPECT_EQ(UsageError({"--job", "9", "--diff", "--since", "2h"}),
            "INVALID_ARGUMENT: --diff --since compares two ranges of always-on windows: give the "
            "first with --since (and --pid, --job or --command) before --diff");
  EXPECT_EQ(UsageError({"--since", "1h", "--diff", "--since", "2h", "-t", "150%"}),
            "INVALID_ARGUMENT: -t with --diff --since is a share of the GPU time below 100%, not "
            "'150%'");
  EXPECT_EQ(UsageError({"--since", "2x"}),
            "INVALID_ARGUMENT: bad --since '2x': '2x' is not a duration (a positive number with "
            "ms, s, m, h or d; a bare number is seconds), nor an RFC 3339 time "
            "(2026-11-27T10:00:00Z)");
  EXPECT_EQ(UsageError({"7", "-t", "5%%"}),
            "INVALID_ARGUMENT: -t needs a number or a percentage, not '5%%'");
}

TEST(ProfileCommandsTest, BadTreeArgumentsSayWhatIsWrong) {
  EXPECT_EQ(UsageError({}),
            "INVALID_ARGUMENT: tree needs a session id, a Hatchet file or --job JOB");
  EXPECT_EQ(UsageError({"1", "--job", "9"}),
            "INVALID_ARGUMENT: tree takes a profile or --job JOB, not both");
  EXPECT_EQ(UsageError({"--job", "9", "--follow"}),
            "INVALID_ARGUMENT: tree --job takes -m, -d, --full-names and --mangled only");
  EXPECT_EQ(UsageError({"--job", "9", "-i", "x"}),
            "INVALID_ARGUMENT: tree --job takes -m, -d, --full-names and --mangled only");
  EXPECT_EQ(UsageError({"1", "-i", "a", "-e", "b"}),
            "INVALID_ARGUMENT: -i and -e cannot be used together");
  EXPECT_EQ(UsageError({"1", "-t", "much"}),
            "INVALID_ARGUMENT: -t needs a number or a percentage, not 'much'");
  EXPECT_EQ(UsageError({"1", "-d", "-1"}), "INVALID_ARGUMENT: -d needs a number >= 0, not '-1'");
  EXPECT_EQ(
      UsageError({"1", "-f", "short"}),
      "INVALID_ARGUMENT: -f is full, file_function_line, function_line, file_function or sass, "
      "not 'short'");
  EXPECT_EQ(UsageError({"1", "-m"}), "INVALID_ARGUMENT: -m needs a value");
  EXPECT_EQ(UsageError({"1", "2"}), "INVALID_ARGUMENT: unexpected argument '2'");
  EXPECT_EQ(UsageError({"1", "--folow"}), "INVALID_ARGUMENT: unknown option '--folow'");
  EXPECT_EQ(UsageError({"x.hatchet", "--follow"}),
            "INVALID_ARGUMENT: --follow needs a session, not the file x.hatchet");
  EXPECT_EQ(UsageError({"1", "--follow", "-l"}),
            "INVALID_ARGUMENT: -l cannot be used with --follow");
}

TEST(ProfileCommandsTest, ParsesTopArguments) {
  absl::StatusOr<TopArgs> args = ParseTopArgs({"-n", "5", "x.hatchet", "--mangled"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->profile, "x.hatchet");
  EXPECT_EQ(args->limit, 5);
  EXPECT_EQ(args->kernel_names, view::KernelNames::kMangled);
  EXPECT_EQ(ParseTopArgs({"x"})->limit, view::kDefaultTopKernels);
  EXPECT_EQ(ParseTopArgs({"-n", "x"}).status().message(), "-n needs a number >= 0, not 'x'");
  EXPECT_EQ(ParseTopArgs({}).status().message(), "top needs a session id or a Hatchet file");
  EXPECT_TRUE(ParseTopArgs({"7", "--collectives"})->collectives);
  EXPECT_EQ(ParseTopArgs({"7", "--collectives", "--stalls"}).status().message(),
            "--stalls and --collectives are two different tables: ask for one");
}

// Proton's file: the launch-metadata state and the empty scope are hidden, the C++ kernel is
// shown short, and the scope with only cpu_time (exclusive, not in the GPU time) stays.
TEST(ProfileCommandsTest, TreeOfProtonsFile) {
  EXPECT_EQ(Tree({kFixture, "-m", "time/ms,avg_time/us,tflop16/s,gbyte/s,util"}),
            "time (ms)  avg_time (us)  tflop16/s   gbyte/s   util\n"
            "  310.000          1.764    319.161   864.516         ROOT\n"
            "  200.000        285.714    494.700   335.000         ├─ w_mm\n"
            "  200.000        285.714    494.700   335.000  0.500  │  └─ "
            "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT\n"
            "   70.000          0.500             2392.857         ├─ w_torch\n"
            "   70.000          0.500             2392.857  0.714  │  └─ "
            "at::native::vectorized_elementwise_kernel<...>\n"
            "   30.000          0.857             1116.667         ├─ w_triton\n"
            "   30.000          0.857             1116.667  0.333  │  └─ add_one\n"
            "                                                      ├─ w_cpu\n"
            "   10.000       1000.000                       0.000  └─ triton_red_fused_0\n");
  // Without scope timings, cpu_time is cpu_timed_scope's metric, exclusive as Proton keeps it.
  EXPECT_EQ(Tree({kFixture, "-m", "cpu_time/ms,count", "-e", "w_(mm|torch|triton)"}),
            "cpu_time (ms)  count\n"
            "                  10  ROOT\n"
            "        5.000      0  ├─ w_cpu\n"
            "                  10  └─ triton_red_fused_0\n");
}

TEST(ProfileCommandsTest, ListsTheFilesMetrics) {
  const std::string list = Tree({kFixture, "-l"});
  EXPECT_NE(list.find("\nflop16/s|gflop16/s|tflop16/s\nflop32/s|gflop32/s|tflop32/s\n"),
            std::string::npos)
      << list;
  EXPECT_NE(list.find("\nutil\n"), std::string::npos) << list;
  EXPECT_NE(list.find("\ncpu_time (ns)\n"), std::string::npos) << list;
}

// The base profile has other metrics than the profile: "tokens" only, and its own kernel.
TEST(ProfileCommandsTest, DiffOfTwoFilesWithDifferentMetrics) {
  const std::string base = ::testing::TempDir() + "/base.hatchet";
  std::ofstream(base) << R"json([{"frame": {"name": "ROOT"}, "metrics": {"tokens": 0},
    "children": [{"frame": {"name": "w_mm"}, "metrics": {"tokens": 7},
      "children": [{"frame": {"name": "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"},
                    "metrics": {"time (ns)": 150000000, "count": 700}}]}]},
    {}])json";
  EXPECT_EQ(Tree({kFixture, "--diff", base, "-m", "time/ms,tokens", "-d", "2"}),
            "time (ms)  tokens\n"
            "  160.000      -7  ROOT\n"
            "   50.000      -7  ├─ w_mm\n"
            "   70.000          ├─ w_torch\n"
            "   30.000          ├─ w_triton\n"
            "                   ├─ w_cpu\n"
            "   10.000          └─ triton_red_fused_0\n");
  std::remove(base.c_str());
}

TEST(ProfileCommandsTest, TopOfProtonsFile) {
  absl::StatusOr<TopArgs> args = ParseTopArgs({kFixture, "-n", "2"});
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<std::string> text = RenderTopCommand(NoDaemon(), *args);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "device 0 (arch 90, 132 SMs, 5120-bit bus): H100 SXM datasheet peaks FP8 1978.9, "
            "FP16 989.4, TF32 494.7, FP64 66.9 TFLOP/s, 3350.0 GB/s\n"
            "TIME (ms)  TIME %   COUNT  AVG (us)  TFLOP/s    GB/s  BOUND    % OF PEAK  NAME\n"
            "  200.000    64.5     700   285.714    494.7   335.0  compute       50.0  "
            "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT\n"
            "   70.000    22.6  140000     0.500        -  2392.9  memory        71.4  "
            "at::native::vectorized_elementwise_kernel<...>\n");
}

TEST(ProfileCommandsTest, ProfilesAreSessionsOrFiles) {
  EXPECT_EQ(LoadProfile(NoDaemon(), "0").status().message(),
            "'0' is not a session id (a positive number; see protonctl sessions)");
  EXPECT_EQ(LoadProfile(NoDaemon(), "./7").status().message(), "./7: cannot open the file");
  EXPECT_EQ(LoadProfile(NoDaemon(), "3").status().code(), absl::StatusCode::kUnavailable);
}

// Two ranks' AllGathers of 1M bf16 each (4 MB gathered), 2 ms each once both are there, and one
// call the plugin got wrong.
TEST(ProfileCommandsTest, TopCollectivesFromThePluginHasBytesAndBusBandwidth) {
  v1::Collectives collectives;
  for (uint64_t seq = 0; seq < 3; ++seq) {
    for (uint32_t rank = 0; rank < 2; ++rank) {
      v1::CollectiveEvent* event = collectives.add_events();
      event->set_pid(4000 + rank);
      event->set_rank(rank);
      event->set_nranks(2);
      event->set_comm_hash(9);
      event->set_seq(seq);
      event->set_count(1'000'000);
      event->set_op("AllGather");
      event->set_datatype("ncclBfloat16");
      event->set_algorithm("RING");
      event->set_protocol("LL128");
      event->set_start_ns(seq * 10'000'000);
      event->set_end_ns(seq * 10'000'000 + 2'000'000);
    }
  }
  collectives.mutable_events(5)->set_nranks(0);  // rank 1's last call
  EXPECT_EQ(
      RenderPluginTopCollectives(collectives, 10),
      "NCCL collective calls from NCCL's profiler plugin, matched by communicator and call "
      "number:\n"
      "COLLECTIVE  CALLS  JUDGED    BYTES  RANK TIME  TRANSFER      WAIT     BUS BW  ALGORITHM  "
      "PROTOCOL\n"
      "all_gather      3       2  12.0 MB    10.0 ms   4.00 ms  0.000 ms  1.00 GB/s  RING       "
      "LL128\n"
      "1 call left out as invalid: protonctl job says why\n");
}

}  // namespace
}  // namespace protond::cli
