#include "cli/export_command.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/test_files.h"
#include "view/testing/test_pprof.h"

namespace protond::cli {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

constexpr char kFixture[] = HATCHET_TESTDATA_DIR "/h100_proton.hatchet";

// Files never reach the daemon: this client is never connected.
client::Client& NoDaemon() {
  static client::Client client("/nonexistent/protond.sock");
  return client;
}

std::string UsageError(const std::vector<std::string>& args) {
  return ParseExportArgs(args).status().ToString();
}

TEST(ExportCommandTest, ParsesEveryOption) {
  absl::StatusOr<ExportArgs> args = ParseExportArgs(
      {"7", "--format", "svg", "-o", "out.svg", "--force", "-m", "cpu_time/ns", "--mangled"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->profile, "7");
  EXPECT_EQ(args->options.format, view::ExportFormat::kSvg);
  EXPECT_EQ(args->output, "out.svg");
  EXPECT_TRUE(args->force);
  EXPECT_EQ(args->options.metric, "cpu_time/ns");
  EXPECT_EQ(args->options.kernel_names, view::KernelNames::kMangled);
  args = ParseExportArgs({"--output", "x.csv", "-F", "csv", "p.hatchet"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->options.format, view::ExportFormat::kCsv);
  EXPECT_FALSE(args->force);
  args = ParseExportArgs({"7", "--format", "pprof", "-o", "step.pb.gz"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->options.format, view::ExportFormat::kPprof);
}

TEST(ExportCommandTest, BadArgumentsSayWhatIsWrong) {
  EXPECT_EQ(UsageError({"7", "--format", "pdf", "-o", "x"}),
            "INVALID_ARGUMENT: --format: 'pdf' is not a format: hatchet, hatchet_msgpack, chrome, "
            "folded, svg, csv or pprof");
  EXPECT_EQ(UsageError({"7", "--format", "csv"}), "INVALID_ARGUMENT: export needs -o FILE");
  EXPECT_EQ(UsageError({"7", "-o", "x"}),
            "INVALID_ARGUMENT: export needs --format: hatchet, hatchet_msgpack, chrome, folded, "
            "svg, csv or pprof");
  EXPECT_EQ(UsageError({"--format", "csv", "-o", "x"}),
            "INVALID_ARGUMENT: export needs a session id or a Hatchet file");
  EXPECT_EQ(UsageError({"7", "8"}), "INVALID_ARGUMENT: unexpected argument '8'");
  EXPECT_EQ(UsageError({"7", "-o"}), "INVALID_ARGUMENT: -o needs a value");
}

class ExportFileTest : public testing::TempDirTest {
 protected:
  absl::Status Export(const std::vector<std::string>& args) {
    absl::StatusOr<ExportArgs> parsed = ParseExportArgs(args);
    if (!parsed.ok()) return parsed.status();
    return RunExportCommand(NoDaemon(), *parsed, nullptr);
  }
};

TEST_F(ExportFileTest, AHatchetFileBecomesACsvWithoutTheDistribution) {
  const std::string out = dir_ + "/kernels.csv";
  ASSERT_TRUE(Export({kFixture, "--format", "csv", "-o", out}).ok());
  EXPECT_THAT(testing::ReadFile(out),
              HasSubstr(",,,,nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT\n"));
}

TEST_F(ExportFileTest, AnExistingOutputIsKeptWithoutForce) {
  const std::string out = dir_ + "/tree.folded";
  std::ofstream(out) << "mine\n";
  const absl::Status refused = Export({kFixture, "--format", "folded", "-o", out});
  EXPECT_EQ(refused.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(refused.message(), out + " exists; --force overwrites it, or choose another -o");
  EXPECT_EQ(testing::ReadFile(out), "mine\n");
  ASSERT_TRUE(Export({kFixture, "--format", "folded", "-o", out, "--force"}).ok());
  EXPECT_THAT(testing::ReadFile(out),
              HasSubstr("ROOT;w_mm;nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT "));
}

TEST_F(ExportFileTest, AHatchetFileBecomesAPprofProfileNamedAfterIt) {
  const std::string out = dir_ + "/step.pb.gz";
  ASSERT_TRUE(Export({kFixture, "--format", "pprof", "-o", out}).ok());
  const perftools::profiles::Profile profile = testing::ParsePprof(testing::ReadFile(out));
  EXPECT_THAT(testing::PprofComments(profile), Contains(std::string("protond: ") + kFixture));
  EXPECT_EQ(profile.time_nanos(), 0);  // a Hatchet file has no times
  std::vector<std::string> functions;
  for (const perftools::profiles::Function& function : profile.function()) {
    functions.push_back(profile.string_table(function.name()));
  }
  EXPECT_THAT(functions, Contains("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"));
}

// The issue's `protonctl export ... -o /dev/null --force` as root replaced /dev/null with a file:
// a device is written into and stays one, and a full device says so. Copies of /dev/null's and
// /dev/full's nodes (mknod needs root), so that a broken writer never replaces the machine's.
TEST_F(ExportFileTest, ADeviceIsWrittenIntoNeverReplaced) {
  const std::string null = dir_ + "/null";
  if (mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_TRUE(Export({kFixture, "--format", "folded", "-o", null, "--force"}).ok());
  struct stat info;
  ASSERT_EQ(lstat(null.c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  const std::string full = dir_ + "/full";  // a copy of /dev/full's node
  ASSERT_EQ(mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  const absl::Status refused = Export({kFixture, "--format", "folded", "-o", full, "--force"});
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), "cannot write " + full + ": No space left on device");
  ASSERT_EQ(lstat(full.c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST_F(ExportFileTest, AChromeTraceNeedsATraceSession) {
  const std::string out = dir_ + "/trace.json";
  const absl::Status refused = Export({kFixture, "--format", "chrome", "-o", out});
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), std::string("--format chrome needs a session started with --data "
                                           "trace; ") +
                                   kFixture +
                                   " is a Hatchet file, which keeps the call tree only, not the "
                                   "events a Chrome trace needs");
  EXPECT_NE(access(out.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace protond::cli
