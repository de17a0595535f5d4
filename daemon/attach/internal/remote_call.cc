#include "daemon/attach/internal/remote_call.h"

#include <elf.h>
#include <sys/uio.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace protond::attach {
namespace {

// Far above the largest XSAVE area (about 11 KiB with AMX); a full buffer means a cut state.
constexpr size_t kExtendedStateBytes = 64 * 1024;
// The ABI wants the direction flag clear at a call; a stop may come where it is set.
constexpr uint64_t kDirectionFlag = uint64_t{1} << 10;
// orig_rax that tells the kernel the thread is in no system call.
constexpr uint64_t kNoSystemCall = ~uint64_t{0};
// How long an abandoned call's thread may take to stop.
constexpr absl::Duration kAbandonStopWait = absl::Seconds(1);

void* AsPointer(uint64_t value) { return reinterpret_cast<void*>(value); }

// Every signal blocked but the synchronous ones (remote_call.h says why).
constexpr uint64_t CallSignalMask() {
  uint64_t open = 0;
  for (const int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) {
    open |= uint64_t{1} << (signal - 1);
  }
  return ~open;
}

}  // namespace

absl::StatusOr<ThreadState> SaveThreadState(Tracee& tracee) {
  ThreadState state;
  RETURN_IF_ERROR(tracee.Request(PTRACE_GETREGS, nullptr, &state.regs, "PTRACE_GETREGS"));
  state.extended.resize(kExtendedStateBytes);
  iovec io = {state.extended.data(), state.extended.size()};
  state.extended_kind = NT_X86_XSTATE;
  if (!tracee.Request(PTRACE_GETREGSET, AsPointer(NT_X86_XSTATE), &io, "NT_X86_XSTATE").ok()) {
    state.extended_kind = NT_PRFPREG;
    io.iov_len = state.extended.size();
    RETURN_IF_ERROR(tracee.Request(PTRACE_GETREGSET, AsPointer(NT_PRFPREG), &io, "NT_PRFPREG"));
  }
  if (io.iov_len >= kExtendedStateBytes) {
    return absl::InternalError(absl::StrCat("extended register state of ", io.iov_len, " bytes"));
  }
  state.extended.resize(io.iov_len);
  RETURN_IF_ERROR(tracee.Request(PTRACE_GETSIGMASK, AsPointer(sizeof(state.signal_mask)),
                                 &state.signal_mask, "PTRACE_GETSIGMASK"));
  return state;
}

absl::Status RestoreThreadState(Tracee& tracee, const ThreadState& state) {
  uint64_t mask = state.signal_mask;
  RETURN_IF_ERROR(
      tracee.Request(PTRACE_SETSIGMASK, AsPointer(sizeof(mask)), &mask, "PTRACE_SETSIGMASK"));
  std::vector<uint8_t> extended = state.extended;
  iovec io = {extended.data(), extended.size()};
  RETURN_IF_ERROR(
      tracee.Request(PTRACE_SETREGSET, AsPointer(state.extended_kind), &io, "PTRACE_SETREGSET"));
  user_regs_struct regs = state.regs;
  return tracee.Request(PTRACE_SETREGS, nullptr, &regs, "PTRACE_SETREGS");
}

absl::StatusOr<uint64_t> RemoteCaller::Call(absl::string_view name, uint64_t function,
                                            std::initializer_list<uint64_t> arguments,
                                            uint64_t stack_top) {
  static constexpr unsigned long long user_regs_struct::*kArgumentRegisters[] = {
      &user_regs_struct::rdi, &user_regs_struct::rsi, &user_regs_struct::rdx,
      &user_regs_struct::rcx, &user_regs_struct::r8,  &user_regs_struct::r9};
  if (arguments.size() > std::size(kArgumentRegisters) || stack_top % 16 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a call of ", name, " with ", arguments.size(), " arguments"));
  }
  if (!mask_set_) {
    uint64_t mask = CallSignalMask();
    RETURN_IF_ERROR(
        tracee_.Request(PTRACE_SETSIGMASK, AsPointer(sizeof(mask)), &mask, "PTRACE_SETSIGMASK"));
    mask_set_ = true;
  }
  const uint64_t return_slot = stack_top - sizeof(uint64_t);
  RETURN_IF_ERROR(memory_.Write(return_slot, std::string(sizeof(uint64_t), '\0')));
  user_regs_struct regs = saved_.regs;
  regs.rip = function;
  regs.rsp = return_slot;
  regs.rax = 0;
  regs.orig_rax = kNoSystemCall;
  regs.eflags &= ~kDirectionFlag;
  size_t next = 0;
  for (const uint64_t argument : arguments) regs.*kArgumentRegisters[next++] = argument;
  RETURN_IF_ERROR(tracee_.Request(PTRACE_SETREGS, nullptr, &regs, "PTRACE_SETREGS"));
  RETURN_IF_ERROR(tracee_.Continue(0));
  return WaitForReturn(name);
}

absl::StatusOr<uint64_t> RemoteCaller::WaitForReturn(absl::string_view name) {
  const absl::Time give_up = absl::Now() + kAbandonAfter * timeout_;
  while (true) {
    absl::StatusOr<Stop> stop = tracee_.WaitForStop(give_up);
    if (absl::IsDeadlineExceeded(stop.status())) return Abandon(name);
    if (!stop.ok()) return stop.status();
    if (stop->kind != Stop::Kind::kSignal) {
      // A group stop (SIGSTOP to the process) or a stray interrupt: this thread finishes its
      // call first; a group stop takes it again when it is detached.
      RETURN_IF_ERROR(tracee_.Continue(0));
      continue;
    }
    siginfo_t info;
    user_regs_struct regs;
    RETURN_IF_ERROR(tracee_.Request(PTRACE_GETSIGINFO, nullptr, &info, "PTRACE_GETSIGINFO"));
    RETURN_IF_ERROR(tracee_.Request(PTRACE_GETREGS, nullptr, &regs, "PTRACE_GETREGS"));
    if (info.si_signo == SIGSEGV && info.si_code > 0 && info.si_addr == nullptr && regs.rip == 0) {
      return regs.rax;
    }
    if (info.si_code <= 0) {  // sent by a process (kill, tgkill, sigqueue), raised by no fault
      held_signals_.push_back(info);
      RETURN_IF_ERROR(tracee_.Continue(0));
      continue;
    }
    return absl::InternalError(absl::StrCat(
        name, " crashed in thread ", tracee_.tid(), ": signal ", info.si_signo, " (code ",
        info.si_code, ") at address 0x", absl::Hex(reinterpret_cast<uintptr_t>(info.si_addr)),
        ", rip 0x", absl::Hex(regs.rip),
        "; the thread's registers are put back, but what the call held stays held"));
  }
}

absl::Status RemoteCaller::Abandon(absl::string_view name) {
  RETURN_IF_ERROR(tracee_.Interrupt());
  ASSIGN_OR_RETURN(const Stop stop, tracee_.WaitForStop(absl::Now() + kAbandonStopWait));
  if (stop.kind == Stop::Kind::kSignal) {
    siginfo_t info;
    if (tracee_.Request(PTRACE_GETSIGINFO, nullptr, &info, "PTRACE_GETSIGINFO").ok() &&
        info.si_code <= 0) {
      held_signals_.push_back(info);
    }
  }
  return absl::DeadlineExceededError(absl::StrCat(
      name, " did not return within ", absl::FormatDuration(kAbandonAfter * timeout_),
      "; abandoned: thread ", tracee_.tid(),
      " is put back where it was, but what the call held (the loader's lock, in dlopen) stays "
      "held"));
}

}  // namespace protond::attach
