// protonctl devices end to end, without a GPU: a workload writes the device records the GPU
// tracer would, and a real protond stores them and lists them per session.
#include <string>
#include <vector>

#include "client-lib/cpp/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/harness.h"

namespace protond::testing {
namespace {

using ::testing::HasSubstr;

class DevicesTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_.Start(); }

  Completed Protonctl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinDir() + "/protonctl", "--socket", daemon_.socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToEnd(argv, dir_);
  }

  std::string dir_ = MakeTempDir();
  Daemon daemon_{dir_};
};

// `text` right-aligned in `width` columns.
std::string RightAligned(const std::string& text, size_t width) {
  return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

TEST_F(DevicesTest, DevicesAProcessWroteAreStoredAndListed) {
  const Completed run = Protonctl({"run", "--", BinDir() + "/device_info_workload"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  client::Client client(daemon_.socket());
  auto sessions = client.ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  const v1::Session& session = sessions->sessions(0);
  ASSERT_EQ(session.processes_size(), 1);
  EXPECT_EQ(session.records(), 2u);  // the scope's enter and exit: devices are not counted
  EXPECT_TRUE(session.problems().empty()) << session.DebugString();
  const uint32_t pid = session.processes(0).pid();

  auto tree = client.GetTree(session.id());
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->devices_size(), 2) << tree->DebugString();
  const v1::Device& h100 = tree->devices(0);
  EXPECT_EQ(h100.process_id(), session.processes(0).process_id());
  EXPECT_EQ(h100.pid(), pid);
  EXPECT_EQ(h100.device_id(), 0u);
  EXPECT_EQ(h100.name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.arch(), 90u);
  EXPECT_EQ(h100.num_sms(), 132u);
  EXPECT_EQ(h100.clock_rate_khz(), 1980000u);
  EXPECT_EQ(h100.memory_clock_rate_khz(), 2619000u);
  EXPECT_EQ(h100.bus_width_bits(), 5120u);
  EXPECT_EQ(h100.memory_bytes(), 85029158912u);
  EXPECT_EQ(tree->devices(1).device_id(), 1u);
  EXPECT_EQ(tree->devices(1).name(), "NVIDIA A100-SXM4-80GB");

  const Completed devices = Protonctl({"devices", "1"});
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  const size_t width = std::max<size_t>(3, std::to_string(pid).size());
  EXPECT_EQ(devices.out,
            RightAligned("PID", width) +
                "  DEVICE  NAME                   ARCH   SMS  CLOCK (MHz)  MEMORY CLOCK (MHz)  "
                "BUS (bits)  MEMORY (GiB)  USE\n" +
                RightAligned(std::to_string(pid), width) +
                "       0  NVIDIA H100 80GB HBM3  sm_90  132         1980                2619  "
                "      5120          79.2  visible only\n" +
                RightAligned(std::to_string(pid), width) +
                "       1  NVIDIA A100-SXM4-80GB  sm_80  108         1410                1593  "
                "      5120          79.3  visible only\n");  // it ran no GPU work
}

TEST_F(DevicesTest, NoDevicesIsSaidAndBadSessionsAreRefusedAsByTree) {
  ASSERT_EQ(Protonctl({"run", "--", BinDir() + "/sample_workload", "--steps", "1"}).exit_code, 0);
  const Completed none = Protonctl({"devices", "1"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "session 1 recorded no GPU devices\n");

  const Completed unknown = Protonctl({"devices", "42"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_THAT(unknown.err, HasSubstr("session 42 does not exist"));
  const Completed not_a_number = Protonctl({"devices", "abc"});
  EXPECT_EQ(not_a_number.exit_code, 1);
  EXPECT_THAT(not_a_number.err, HasSubstr("'abc' is not a session id"));
  const Completed missing = Protonctl({"devices"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("protonctl: devices: a session id is missing"));
}

}  // namespace
}  // namespace protond::testing
