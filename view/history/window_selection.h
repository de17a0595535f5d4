// Which always-on windows a ListHistoryRequest selects (`protonctl history`'s options): protond
// answers ListHistory with it, and protonctl's tests make the same choice. Pure.
#ifndef PROTOND_VIEW_HISTORY_WINDOW_SELECTION_H_
#define PROTOND_VIEW_HISTORY_WINDOW_SELECTION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace re2 {
class RE2;
}

namespace protond::view {

// Whether `session` is one of job `job`'s: started for it (start --job), or one of its processes
// carries the job id (SLURM_JOB_ID, else POD_NAME), as under `SLURM_JOB_ID=77 protonctl run`.
bool IsSessionOfJob(const v1::Session& session, const std::string& job);

class WindowSelection {
 public:
  // InvalidArgumentError naming what was wrong: a regex RE2 refuses, pid with job.
  static absl::StatusOr<WindowSelection> Of(const v1::ListHistoryRequest& request);

  // An always-on window that started in [since, until) and whose processes match pid, job and
  // command (each when set).
  bool Selects(const v1::Session& session) const;

 private:
  explicit WindowSelection(const v1::ListHistoryRequest& request) : request_(request) {}

  v1::ListHistoryRequest request_;
  std::shared_ptr<const re2::RE2> command_;  // null without one; shared: RE2 does not copy
};

// Oldest first: by start, then id.
void SortOldestFirst(std::vector<const v1::Session*>& windows);

}  // namespace protond::view

#endif  // PROTOND_VIEW_HISTORY_WINDOW_SELECTION_H_
