#include "daemon/attach/internal/tracee.h"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "daemon/attach/internal/proc_facts.h"

namespace protond::attach {
namespace {

// How long the destructor waits for a running thread to stop before it detaches.
constexpr absl::Duration kStopBeforeDetach = absl::Seconds(1);

void* SignalData(int signal) { return reinterpret_cast<void*>(static_cast<intptr_t>(signal)); }

bool IsStoppingSignal(int signal) {
  return signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Tracee>> Tracee::Seize(pid_t tid) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) == 0) {
    return std::unique_ptr<Tracee>(new Tracee(tid));
  }
  const int error = errno;
  // The kernel refuses a zombie with EPERM too.
  if (error == ESRCH || ThreadExited(tid)) {
    return absl::NotFoundError(absl::StrCat("thread ", tid, " exited while attaching"));
  }
  if (error == EPERM) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot trace thread ", tid, ": ", DescribePtraceScope()));
  }
  return absl::ErrnoToStatus(error, absl::StrCat("PTRACE_SEIZE of thread ", tid));
}

Tracee::~Tracee() {
  if (!attached_) return;
  // PTRACE_DETACH needs a stopped tracee; a signal that arrives first is passed on by it.
  int signal = 0;
  if (!stopped_ && Interrupt().ok()) {
    absl::StatusOr<Stop> stop = WaitForStop(absl::Now() + kStopBeforeDetach);
    if (stop.ok() && stop->kind == Stop::Kind::kSignal) signal = stop->signal;
  }
  if (attached_) ptrace(PTRACE_DETACH, tid_, nullptr, SignalData(signal));
}

absl::Status Tracee::Request(enum __ptrace_request request, void* address, void* data,
                             absl::string_view what) {
  if (ptrace(request, tid_, address, data) != -1) return absl::OkStatus();
  if (errno == ESRCH) {
    return absl::NotFoundError(
        absl::StrCat("thread ", tid_, " exited while attaching (", what, ")"));
  }
  return absl::ErrnoToStatus(errno, absl::StrCat(what, " of thread ", tid_));
}

absl::Status Tracee::Continue(int signal) {
  absl::Status status = Request(PTRACE_CONT, nullptr, SignalData(signal), "PTRACE_CONT");
  if (status.ok()) stopped_ = false;
  return status;
}

absl::Status Tracee::Detach(int signal) {
  absl::Status status = Request(PTRACE_DETACH, nullptr, SignalData(signal), "PTRACE_DETACH");
  if (status.ok()) attached_ = false;
  return status;
}

absl::StatusOr<Stop> Tracee::WaitForStop(absl::Time deadline) {
  // Polled, so that a deadline holds without a timer or a signal of ours; the pause grows to
  // 1 ms, below what a remote dlopen takes.
  absl::Duration pause = absl::Microseconds(20);
  while (true) {
    int status = 0;
    const pid_t got = waitpid(tid_, &status, __WALL | WNOHANG);
    if ((got == tid_ && !WIFSTOPPED(status)) || (got < 0 && errno == ECHILD)) {
      attached_ = false;
      return absl::NotFoundError(absl::StrCat("thread ", tid_, " exited while attaching"));
    }
    if (got == tid_) {
      stopped_ = true;
      const int signal = WSTOPSIG(status);
      if ((status >> 16) != PTRACE_EVENT_STOP) return Stop{Stop::Kind::kSignal, signal};
      return Stop{IsStoppingSignal(signal) ? Stop::Kind::kGroupStop : Stop::Kind::kInterrupt,
                  signal};
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("thread ", tid_, " did not stop in time"));
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Milliseconds(1));
  }
}

}  // namespace protond::attach
