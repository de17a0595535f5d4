// Making a stopped thread call a function of its own process, and putting the thread back as it
// was afterwards.
//
// A call: the saved registers with rip at the function, the arguments in rdi, rsi, rdx, rcx, r8,
// r9, a return address of 0 pushed at a 16-byte aligned stack top (so that (rsp + 8) % 16 == 0
// at the function's entry), and orig_rax = -1, so that the kernel's system call restart (for a
// thread stopped inside one) leaves rip and rax alone. The thread runs until the function returns
// to address 0: a SIGSEGV with si_addr 0, reported to us as a signal-delivery-stop and never
// delivered; rax holds the result.
//
// While calls run the thread blocks every signal but the synchronous ones (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGTRAP, SIGSYS): a signal for the process goes to another of its threads, one
// for this thread waits until the mask is put back, and no handler of the program runs on top of
// a half-done dlopen. The synchronous ones stay open because the kernel, for a fault it must
// deliver while the signal is blocked, resets the program's handler to SIG_DFL for good.
#ifndef PROTOND_DAEMON_ATTACH_INTERNAL_REMOTE_CALL_H_
#define PROTOND_DAEMON_ATTACH_INTERNAL_REMOTE_CALL_H_

#include <signal.h>
#include <sys/user.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/attach/internal/target_memory.h"
#include "daemon/attach/internal/tracee.h"

namespace protond::attach {

// What a stopped thread had before the calls: general registers, the x87/SSE/AVX/... state
// (the kernel's XSAVE layout, or FXSAVE's where it offers no NT_X86_XSTATE) and signal mask.
struct ThreadState {
  user_regs_struct regs;
  std::vector<uint8_t> extended;
  int extended_kind = 0;  // NT_X86_XSTATE or NT_PRFPREG
  uint64_t signal_mask = 0;
};

// Read at a safe moment, which is never inside a call that swaps the signal mask (the mask read
// then would be the temporary one).
absl::StatusOr<ThreadState> SaveThreadState(Tracee& tracee);
absl::Status RestoreThreadState(Tracee& tracee, const ThreadState& state);

class RemoteCaller {
 public:
  // `tracee` stopped, with `saved` its state; each call may take `timeout`, and is waited for up
  // to kAbandonAfter times that (see Call).
  RemoteCaller(Tracee& tracee, const TargetMemory& memory, const ThreadState& saved,
               absl::Duration timeout)
      : tracee_(tracee), memory_(memory), saved_(saved), timeout_(timeout) {}

  static constexpr int kAbandonAfter = 10;

  // Calls `function` (`name` for messages) with `arguments` and `stack_top` (16-byte aligned)
  // as its stack, and returns rax. Errors:
  //  - the function crashed (a fault other than the return to 0) [kInternal]: the registers
  //    can still be put back, but locks the call held stay held;
  //  - it did not return within kAbandonAfter * timeout [kDeadlineExceeded]: a dlopen cannot be
  //    backed out of, so it is waited for that long, then abandoned: the thread is stopped
  //    wherever it is, and whatever the call held stays held;
  //  - the thread exited [kNotFound].
  // After any of them the thread is stopped (or gone), ready for RestoreThreadState.
  absl::StatusOr<uint64_t> Call(absl::string_view name, uint64_t function,
                                std::initializer_list<uint64_t> arguments, uint64_t stack_top);

  // Signals sent to the thread during the calls that it could not block (SIGSTOP, a kill of
  // SIGSEGV, ...): taken from it, for the caller to send again once the thread is put back.
  const std::vector<siginfo_t>& held_signals() const { return held_signals_; }

 private:
  absl::StatusOr<uint64_t> WaitForReturn(absl::string_view name);
  absl::Status Abandon(absl::string_view name);

  Tracee& tracee_;
  const TargetMemory& memory_;
  const ThreadState& saved_;
  const absl::Duration timeout_;
  bool mask_set_ = false;
  std::vector<siginfo_t> held_signals_;
};

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_INTERNAL_REMOTE_CALL_H_
