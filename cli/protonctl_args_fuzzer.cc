// Parses arbitrary words as protonctl's arguments, the way `protonctl tree|top|export|start|stop`
// (and history and job) do, and renders what parsed over a small fixed profile (scopes with CPU
// timings, kernels with GPU time, flops and bytes, an H100): -m, -f, -i/-e, -t, -d, the export
// formats and a range diff's threshold reach the code that uses them. Errors are answers; a crash,
// undefined behaviour or a hang is a finding.
//
// Input: words separated by NUL or newline bytes, the same words given to every parser.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cli/export_command.h"
#include "cli/history_command.h"
#include "cli/job_command.h"
#include "cli/on_demand_commands.h"
#include "cli/profile_commands.h"
#include "common/text/duration.h"
#include "view/render/metric_spec.h"
#include "view/testing/test_trees.h"
#include "view/tree/frame_names.h"
#include "view/tree/profile_view.h"
#include "view/tree/share_shift.h"

namespace {

using protond::v1::Metric;

// ROOT > main (a scope) > {step (a scope) > a mangled kernel, a Python frame > a kernel}.
protond::v1::Tree FixedProfile() {
  protond::v1::Tree tree;
  protond::testing::AddNode(&tree, 0, 0, "ROOT", 0);
  protond::v1::TreeNode* main = protond::testing::AddNode(&tree, 1, 0, "main", 1);
  main->set_duration_ns_sum(3'000'000);
  main->set_duration_ns_min(3'000'000);
  main->set_duration_ns_max(3'000'000);
  protond::v1::TreeNode* step = protond::testing::AddNode(&tree, 2, 1, "step", 4);
  step->set_duration_ns_sum(2'000'000);
  step->set_duration_ns_min(400'000);
  step->set_duration_ns_max(600'000);
  protond::v1::TreeNode* matmul =
      protond::testing::AddNode(&tree, 3, 2, "_Z6matmulIfEvPKT_S2_PS0_i", 700);
  protond::testing::AddInt(matmul, "time (ns)", Metric::INCLUSIVE, 200'000'000);
  protond::testing::AddInt(matmul, "device_id", Metric::PROPERTY, 0);
  protond::testing::AddInt(matmul, "flops16", Metric::INCLUSIVE, 98'940'000'000'000);
  protond::testing::AddInt(matmul, "bytes", Metric::INCLUSIVE, 67'000'000'000);
  protond::v1::TreeNode* frame = protond::testing::AddNode(&tree, 4, 1, "/src/model.py:42@fwd", 1);
  protond::testing::AddDouble(frame, "cpu_time (ns)", 1500.5);
  protond::v1::TreeNode* add = protond::testing::AddNode(&tree, 5, 4, "add_kernel", 2);
  protond::testing::AddInt(add, "time (ns)", Metric::INCLUSIVE, 10'000);
  protond::testing::AddInt(add, "device_id", Metric::PROPERTY, 0);
  protond::v1::Device* device = tree.add_devices();
  device->set_arch(90);
  device->set_num_sms(132);
  device->set_bus_width_bits(5120);
  device->set_clock_rate_khz(1980000);
  device->set_memory_clock_rate_khz(2619000);
  return tree;
}

void FuzzProfileCommands(const std::vector<std::string>& args, const protond::v1::Tree& profile) {
  if (absl::StatusOr<protond::cli::TreeArgs> tree =
          protond::cli::ParseTreeArgs(args, absl::FromUnixSeconds(1'800'000'000));
      tree.ok()) {
    (void)protond::view::RenderProfile(profile, tree->view,
                                       tree->diff_profile.empty() ? nullptr : &profile);
    if (tree->diff_range) {  // a range against itself: the threshold reaches the comparison
      absl::StatusOr<protond::view::ShareShifts> shifts =
          protond::view::FindShareShifts(profile, profile, *tree->view.threshold);
      if (shifts.ok()) {
        (void)protond::view::RenderShareShifts(*shifts, *tree->view.threshold,
                                               tree->view.kernel_names);
      }
    }
  }
  (void)protond::cli::ParseTopArgs(args);
  if (absl::StatusOr<protond::cli::ExportArgs> exported = protond::cli::ParseExportArgs(args);
      exported.ok()) {
    protond::view::ExportInput input;
    input.tree = profile;
    (void)protond::view::RenderExport(exported->options, input, exported->profile);
  }
}

void FuzzOneWord(const std::string& word, const protond::v1::Tree& profile) {
  (void)protond::text::ParseDurationMs(word);
  (void)protond::cli::ParseSessionId(word);
  (void)protond::view::ParseFrameFormat(word);
  (void)protond::view::ParseMetricSpec(word, profile);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const protond::v1::Tree* const profile = new protond::v1::Tree(FixedProfile());
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> args =
      absl::StrSplit(text, absl::ByAnyChar(absl::string_view("\n\0", 2)));
  FuzzProfileCommands(args, *profile);
  (void)protond::cli::ParseStartArgs(args);
  (void)protond::cli::ParseStopArgs(args);
  (void)protond::cli::ParseHistoryArgs(args, absl::FromUnixSeconds(1'800'000'000));
  (void)protond::cli::ParseJobArgs(args);
  for (const std::string& word : args) FuzzOneWord(word, *profile);
  return 0;
}
