// A stopped session of the always-on history (a window, or a period that merged windows) as the
// daemon holds it, committed as it is: what retention (history_retention.h) and the periods
// (history_periods.h) decide from, without reading the store.
#ifndef PROTOND_DAEMON_ALWAYS_ON_STOPPED_WINDOW_H_
#define PROTOND_DAEMON_ALWAYS_ON_STOPPED_WINDOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/store/store.h"

namespace protond::always_on {

struct StoppedWindow {
  uint64_t session_id = 0;
  int64_t start_time_unix_ns = 0;
  uint64_t records = 0;  // over all its processes
  uint64_t dropped_records = 0;
  // Whose history it is: a job's windows (job set) or one process's (its only process id).
  std::string name;  // "window pid P", "window job J"; "hour pid P", "day job J" for a period
  uint32_t uid = 0;
  std::string job;
  std::vector<uint64_t> process_ids;
  store::HistoryPeriod period = store::HistoryPeriod::kWindow;
};

}  // namespace protond::always_on

#endif  // PROTOND_DAEMON_ALWAYS_ON_STOPPED_WINDOW_H_
