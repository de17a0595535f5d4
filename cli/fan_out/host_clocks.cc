#include "cli/fan_out/host_clocks.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock/tsc_clock.h"

namespace protond::cli {

view::HostClockSamples SampleHostClock(client::Client& client, const std::string& host) {
  std::vector<view::ClockSample> samples;
  for (int i = 0; i < kClockSamples; ++i) {
    view::ClockSample sample;
    sample.sent_ns = static_cast<int64_t>(clock::MonotonicNs());
    const absl::StatusOr<int64_t> remote_ns = client.GetClock();
    sample.received_ns = static_cast<int64_t>(clock::MonotonicNs());
    if (absl::IsUnimplemented(remote_ns.status())) {
      return {host,
              absl::UnimplementedError(
                  "its protond does not serve GetClock: a version older than this protonctl")};
    }
    if (!remote_ns.ok()) {
      return {host,
              absl::Status(remote_ns.status().code(),
                           absl::StrCat("cannot read its clock: ", remote_ns.status().message()))};
    }
    sample.remote_ns_untrusted = *remote_ns;
    samples.push_back(sample);
  }
  return {host, std::move(samples)};
}

}  // namespace protond::cli
