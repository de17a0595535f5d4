// protonctl given newer Proton's `.hatchet_msgpack` file instead of a `.hatchet` one: tree (with
// proton-viewer's options), tree --diff and export read it the same way, whatever the file is
// called, and a damaged one is an error naming the file, the format and the byte offset. No
// daemon is needed or started.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/harness.h"
#include "view/hatchet/hatchet_reader.h"
#include "view/hatchet/hatchet_writer.h"

namespace protond::testing {
namespace {

class HatchetMsgPackFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<v1::Tree> tree = view::ReadHatchetFile(json_);
    ASSERT_TRUE(tree.ok()) << tree.status();
    msgpack_bytes_ = view::RenderHatchetMsgPack(*tree);
    std::ofstream(msgpack_, std::ios::binary) << msgpack_bytes_;
    std::ofstream(misnamed_, std::ios::binary) << msgpack_bytes_;
  }

  Completed Protonctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl", "--socket", socket_};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv, dir_);
  }

  // The output of a command that must succeed.
  std::string Output(const std::vector<std::string>& args) {
    const Completed run = Protonctl(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err, "");
    return run.out;
  }

  const std::string json_ = HATCHET_TESTDATA_DIR "/h100_proton.hatchet";
  const std::string dir_ = MakeTempDir();
  const std::string socket_ = dir_ + "/run/protond.sock";
  const std::string msgpack_ = dir_ + "/h100_proton.hatchet_msgpack";
  const std::string misnamed_ = dir_ + "/misnamed.hatchet";
  std::string msgpack_bytes_;
};

TEST_F(HatchetMsgPackFileTest, TreeOfAMsgPackFileIsTheTreeOfItsJsonForm) {
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{},
        {"-m", "time/ms,avg_time/us,util", "-d", "2", "-t", "0.05"},
        {"-l"}}) {
    std::vector<std::string> json_args = {"tree", json_};
    json_args.insert(json_args.end(), options.begin(), options.end());
    const std::string expected = Output(json_args);
    ASSERT_NE(expected.find("time"), std::string::npos) << expected;
    for (const std::string& file : {msgpack_, misnamed_}) {
      std::vector<std::string> args = {"tree", file};
      args.insert(args.end(), options.begin(), options.end());
      EXPECT_EQ(Output(args), expected) << file;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(socket_));
}

TEST_F(HatchetMsgPackFileTest, DiffAndExportReadMsgPackFiles) {
  const std::string json_diff = Output({"tree", json_, "--diff", json_, "-m", "time/ms"});
  EXPECT_EQ(Output({"tree", msgpack_, "--diff", json_, "-m", "time/ms"}), json_diff);
  EXPECT_EQ(Output({"tree", json_, "--diff", msgpack_, "-m", "time/ms"}), json_diff);

  Output({"export", json_, "--format", "csv", "-o", dir_ + "/from_json.csv"});
  Output({"export", msgpack_, "--format", "csv", "-o", dir_ + "/from_msgpack.csv"});
  const std::string csv = ReadFile(dir_ + "/from_json.csv");
  EXPECT_NE(csv.find("nvjet_sm90"), std::string::npos) << csv;
  EXPECT_EQ(ReadFile(dir_ + "/from_msgpack.csv"), csv);
  // Back to Proton's JSON, and to MessagePack again: the same bytes.
  Output(
      {"export", msgpack_, "--format", "hatchet_msgpack", "-o", dir_ + "/again.hatchet_msgpack"});
  EXPECT_EQ(ReadFile(dir_ + "/again.hatchet_msgpack"), msgpack_bytes_);
}

TEST_F(HatchetMsgPackFileTest, ADamagedFileNamesItselfTheFormatAndTheOffset) {
  const std::string truncated = dir_ + "/truncated.hatchet_msgpack";
  std::ofstream(truncated, std::ios::binary) << msgpack_bytes_.substr(0, 100);
  const Completed run = Protonctl({"tree", truncated});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "protonctl: " + truncated +
                         ": MessagePack: byte offset 94: an array of 6 items needs at least 6 "
                         "bytes, but 5 are left\n");
  EXPECT_FALSE(std::filesystem::exists(socket_));
}

}  // namespace
}  // namespace protond::testing
