// One thread of another process, traced by the calling thread with PTRACE_SEIZE: seizing stops
// nothing, and no other thread of the process is touched. The kernel ties a tracee to the thread
// that seized it, so every call on a Tracee must come from that one thread.
#ifndef PROTOND_DAEMON_ATTACH_INTERNAL_TRACEE_H_
#define PROTOND_DAEMON_ATTACH_INTERNAL_TRACEE_H_

#include <sys/ptrace.h>
#include <sys/types.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace protond::attach {

// What a tracee stopped for (ptrace(2), "Stopped states").
struct Stop {
  enum class Kind {
    kInterrupt,  // PTRACE_INTERRUPT took effect
    kGroupStop,  // SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU stopped the whole process
    kSignal,     // a signal is about to be delivered (signal-delivery-stop)
  };
  Kind kind = Kind::kInterrupt;
  int signal = 0;  // kGroupStop: the stopping signal; kSignal: the signal
};

class Tracee {
 public:
  // kNotFound: no such thread; kPermissionDenied: ptrace refused (naming Yama's setting).
  static absl::StatusOr<std::unique_ptr<Tracee>> Seize(pid_t tid);
  Tracee(const Tracee&) = delete;
  Tracee& operator=(const Tracee&) = delete;
  // Detaches (without a signal) unless Detach was called or the thread is gone.
  ~Tracee();

  pid_t tid() const { return tid_; }

  // ptrace(request, tid, address, data); an error names `what` and errno (ESRCH: kNotFound,
  // the thread exited or is not stopped).
  absl::Status Request(enum __ptrace_request request, void* address, void* data,
                       absl::string_view what);

  // Stops the thread wherever it is; a blocking system call returns with a restart code.
  absl::Status Interrupt() { return Request(PTRACE_INTERRUPT, nullptr, nullptr, "interrupt"); }
  // Resumes a stopped thread; `signal` (0: none) is delivered from a signal-delivery-stop.
  absl::Status Continue(int signal);
  absl::Status Detach(int signal);

  // The next stop, waited for until `deadline`. kNotFound when the thread exits first (and
  // then the Tracee is gone: the destructor does nothing).
  absl::StatusOr<Stop> WaitForStop(absl::Time deadline);

 private:
  explicit Tracee(pid_t tid) : tid_(tid) {}

  pid_t tid_;
  bool attached_ = true;
  bool stopped_ = false;  // in a ptrace-stop: registers may be read and written
};

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_INTERNAL_TRACEE_H_
