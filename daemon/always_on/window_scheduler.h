// Always-on profiling (protond --always-on): which processes to profile in a short window now.
// Windows start at multiples of the period on the wall clock, so every process of a job (its
// ranks, on this node and on the others) opens its window at the same moment; a process in a
// session someone started by hand gets no window, and the window it misses is counted.
//
// Pure logic: the caller passes the registered processes and the time at each tick (the injected
// clock), opens the windows it is told to, and owns the thread. Not thread-safe: one caller.
#ifndef PROTOND_DAEMON_ALWAYS_ON_WINDOW_SCHEDULER_H_
#define PROTOND_DAEMON_ALWAYS_ON_WINDOW_SCHEDULER_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}

namespace protond::always_on {

using Clock = std::chrono::system_clock;

// Which processes get windows, and how long and how often. Empty filters select every process.
struct WindowPolicy {
  std::chrono::milliseconds window{2000};
  std::chrono::milliseconds period{60000};
  std::vector<uint32_t> uids;     // --always-on-users
  std::vector<std::string> jobs;  // --always-on-jobs: SLURM_JOB_ID or pod name
  std::string command_regex;      // --always-on-command: RE2, found anywhere in the command line
};

// INVALID_ARGUMENT saying why RE2 refuses `regex` (--always-on-command).
absl::Status CheckCommandRegex(const std::string& regex);

// A registered process, as the scheduler needs to know it.
struct Candidate {
  uint64_t process_id = 0;
  uint32_t pid = 0;
  uint32_t uid = 0;
  std::string job;  // "" for a process of no job
  std::string command;
  enum class Busy {
    kFree,
    kHandSession,    // records into a session someone started: it gets no window meanwhile
    kWindowSession,  // its last window has not ended yet
  };
  Busy busy = Busy::kFree;
};

// A window to open now: one process, or every free process of one job and user (their ranks
// start together). It ends at start + the policy's window, whenever it is opened.
struct Window {
  std::string job;
  uint32_t uid = 0;
  std::vector<uint64_t> process_ids;  // ascending
  std::vector<uint32_t> pids;         // in the same order
  Clock::time_point start;            // the aligned start: a multiple of the period
  Clock::time_point end;
};

struct Plan {
  std::vector<Window> open;
  std::vector<uint64_t> skipped;  // process ids whose window a hand-started session took
};

class WindowScheduler {
 public:
  // INVALID_ARGUMENT for a window or period that is not positive, a window not shorter than the
  // period, or a command regex that RE2 refuses.
  static absl::StatusOr<std::unique_ptr<WindowScheduler>> Create(WindowPolicy policy);
  ~WindowScheduler();

  // What to open at `now`. A process gets at most one window a period: the window of the period's
  // aligned start, if `now` is still within it and the process was seen by a tick at or before
  // that start (one that registers later waits for the next start, so that no rank of a job
  // opens late and alone).
  Plan Tick(const std::vector<Candidate>& processes, Clock::time_point now);

  const WindowPolicy& policy() const { return policy_; }
  uint64_t windows_opened() const { return windows_opened_; }
  uint64_t windows_skipped() const { return windows_skipped_; }
  // Windows skipped by process id (those the daemon still knows of).
  const std::map<uint64_t, uint64_t>& skipped_by_process() const { return skipped_by_process_; }

 private:
  WindowScheduler(WindowPolicy policy, std::unique_ptr<re2::RE2> command);
  bool Selects(const Candidate& process) const;

  const WindowPolicy policy_;
  const std::unique_ptr<re2::RE2> command_;  // null: any command
  struct Seen {
    Clock::time_point first;   // the first tick that saw it
    int64_t last_period = -1;  // the last period whose window it was given or skipped
  };
  std::map<uint64_t, Seen> seen_;  // by process id; forgotten when no longer registered
  std::map<uint64_t, uint64_t> skipped_by_process_;
  uint64_t windows_opened_ = 0;
  uint64_t windows_skipped_ = 0;
};

}  // namespace protond::always_on

#endif  // PROTOND_DAEMON_ALWAYS_ON_WINDOW_SCHEDULER_H_
