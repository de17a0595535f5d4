// When a thread of another process may be made to call dlopen: a moment at which it holds no
// lock that dlopen (or malloc, which dlopen calls) takes. A thread stopped while it holds one
// would wait for itself forever.
//
// Safe: the thread waits in a blocking system call that a C library wrapper makes without such
// a lock (read, futex for a condition variable, nanosleep, poll, ...), or it runs code outside
// libc.so.6, ld-linux and any malloc replacement. Unsafe: anywhere else in those, a futex wait
// for a lock (libc's own locks wait so, sometimes while holding another: fork holds malloc's
// arenas in turn), a system call that swaps the signal mask while it waits (the kernel would lose
// the mask to restore), and a restartable sequence (rseq) critical section.
//
// Not seen by these rules: frames further up the stack. A signal handler that interrupted malloc
// and runs program code looks safe (see remote_loader.h, "Known limits").
#ifndef PROTOND_DAEMON_ATTACH_INTERNAL_SAFE_MOMENT_H_
#define PROTOND_DAEMON_ATTACH_INTERNAL_SAFE_MOMENT_H_

#include <sys/types.h>
#include <sys/user.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/attach/internal/proc_facts.h"
#include "daemon/attach/internal/target_memory.h"
#include "daemon/attach/internal/tracee.h"

namespace protond::attach {

// Why a thread stopped with `regs` may not call into libc now; "" when it may. The rseq check
// is separate (it reads the target's memory).
std::string WhyNotSafe(const user_regs_struct& regs, const GlibcImage& glibc);

struct SafeMoment {
  std::unique_ptr<Tracee> tracee;  // seized, in an interrupt stop
  int tries = 0;                   // stops it took
};

// Stops the threads of `pid` one at a time (the main thread first), each a few times with a
// short random pause between, until one is at a safe moment; the others run on untouched.
// kDeadlineExceeded (naming the last reason) when none was by `deadline`; kFailedPrecondition
// when the process is stopped by a signal (SIGSTOP, ...).
absl::StatusOr<SafeMoment> FindSafeMoment(pid_t pid, const GlibcImage& glibc,
                                          const TargetMemory& memory, absl::Time deadline);

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_INTERNAL_SAFE_MOMENT_H_
