// The readings of a node's clock that `protonctl --hosts ... job` relates the nodes' clocks with
// (view/jobs/clock_offset.h): kClockSamples GetClock calls, each timed on this machine's
// CLOCK_MONOTONIC.
#ifndef PROTOND_CLI_FAN_OUT_HOST_CLOCKS_H_
#define PROTOND_CLI_FAN_OUT_HOST_CLOCKS_H_

#include <string>

#include "client-lib/cpp/client.h"
#include "view/jobs/clock_offset.h"

namespace protond::cli {

// Readings per node: the shortest of 8 round trips is the estimate's, so that one slowed by a
// busy daemon or network does not set the error.
inline constexpr int kClockSamples = 8;

// kClockSamples readings of the clock of `host`'s protond, or why there are none (it does not
// answer, or it is older than GetClock).
view::HostClockSamples SampleHostClock(client::Client& client, const std::string& host);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_HOST_CLOCKS_H_
