#include "daemon/attach/internal/safe_moment.h"

#include <linux/futex.h>
#include <sys/syscall.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace protond::attach {
namespace {

// Stops of one thread before the next one is tried.
constexpr int kStopsPerThread = 8;
// A thread that does not stop this soon (uninterruptible sleep, a zombie main thread) is left.
constexpr absl::Duration kMaxStopWait = absl::Milliseconds(200);
// Pauses between two stops of a thread: long enough for it to leave a short lock-holding stretch
// (a malloc), random so that a thread with a periodic pattern is not met at the same point.
constexpr int64_t kMinPauseMicros = 20;
constexpr int64_t kMaxPauseMicros = 2000;

bool InAny(const std::vector<AddressRange>& ranges, uint64_t address) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [address](const AddressRange& range) { return range.Contains(address); });
}

// System calls in which libc's wrappers wait without holding a lock of their own.
constexpr int64_t kBlockingCalls[] = {
    SYS_read,        SYS_readv,        SYS_pread64,   SYS_preadv,          SYS_preadv2,
    SYS_write,       SYS_writev,       SYS_pwrite64,  SYS_recvfrom,        SYS_recvmsg,
    SYS_recvmmsg,    SYS_sendto,       SYS_sendmsg,   SYS_accept,          SYS_accept4,
    SYS_connect,     SYS_futex,        SYS_nanosleep, SYS_clock_nanosleep, SYS_pause,
    SYS_poll,        SYS_ppoll,        SYS_select,    SYS_pselect6,        SYS_epoll_wait,
    SYS_epoll_pwait, SYS_epoll_pwait2, SYS_wait4,     SYS_waitid,          SYS_rt_sigtimedwait,
    SYS_msgrcv};

bool IsBlockingCall(int64_t number) {
  return std::find(std::begin(kBlockingCalls), std::end(kBlockingCalls), number) !=
         std::end(kBlockingCalls);
}

// A futex wait for a lock (lll_lock's value 2 "locked, with waiters", or a PI lock) rather than
// for a condition, a semaphore or a thread's end.
bool IsLockWait(const user_regs_struct& regs) {
  const int operation = static_cast<int>(regs.rsi) & FUTEX_CMD_MASK;
  return operation == FUTEX_LOCK_PI || operation == FUTEX_LOCK_PI2 ||
         (operation == FUTEX_WAIT && static_cast<uint32_t>(regs.rdx) == 2);
}

// These calls wait with a temporary signal mask and restore the thread's own on return; the
// kernel keeps that one aside, where PTRACE_GETSIGMASK cannot see it and PTRACE_SETSIGMASK
// discards it.
bool SwapsSignalMask(const user_regs_struct& regs) {
  switch (static_cast<int64_t>(regs.orig_rax)) {
    case SYS_rt_sigsuspend:
      return true;
    case SYS_ppoll:
      return regs.r10 != 0;
    case SYS_pselect6:
      return regs.r9 != 0;
    case SYS_epoll_pwait:
    case SYS_epoll_pwait2:
      return regs.r8 != 0;
    default:
      return false;
  }
}

// struct ptrace_rseq_configuration of <linux/ptrace.h>, which clashes with <sys/ptrace.h>.
struct RseqConfiguration {
  uint64_t rseq_abi_pointer;
  uint32_t rseq_abi_size;
  uint32_t signature;
  uint32_t flags;
  uint32_t pad;
};
static_assert(sizeof(RseqConfiguration) == 24);

// struct rseq_cs of <linux/rseq.h>; struct rseq holds a pointer to one at offset 8.
struct RseqCriticalSection {
  uint32_t version;
  uint32_t flags;
  uint64_t start_ip;
  uint64_t post_commit_offset;
  uint64_t abort_ip;
};
constexpr uint64_t kRseqCsOffset = 8;

// Whether the thread is inside a restartable sequence: the kernel aborts one that is preempted,
// but not one whose instruction pointer we moved away and back (it forgets it meanwhile), so
// the sequence would commit on stale per-CPU data (tcmalloc's caches).
bool InRseqCriticalSection(Tracee& tracee, const TargetMemory& memory, uint64_t rip) {
  RseqConfiguration config = {};
  // Before Linux 5.13 the kernel cannot say; glibc registers rseq but uses no critical section.
  if (!tracee
           .Request(PTRACE_GET_RSEQ_CONFIGURATION, reinterpret_cast<void*>(sizeof(config)), &config,
                    "PTRACE_GET_RSEQ_CONFIGURATION")
           .ok() ||
      config.rseq_abi_pointer == 0) {
    return false;
  }
  uint64_t cs_address = 0;
  RseqCriticalSection cs = {};
  if (!memory.Read(config.rseq_abi_pointer + kRseqCsOffset, &cs_address, sizeof(cs_address)) ||
      cs_address == 0 || !memory.Read(cs_address, &cs, sizeof(cs))) {
    return false;
  }
  return rip >= cs.start_ip && rip - cs.start_ip < cs.post_commit_offset;
}

class SafeMomentSearch {
 public:
  SafeMomentSearch(const GlibcImage& glibc, const TargetMemory& memory, absl::Time deadline)
      : glibc_(glibc), memory_(memory), deadline_(deadline) {}

  // `tid` seized and stopped at a safe moment; nullptr when it was not within kStopsPerThread
  // stops (or it exited, or would not stop); an error ends the search.
  absl::StatusOr<std::unique_ptr<Tracee>> TryThread(pid_t tid) {
    absl::StatusOr<std::unique_ptr<Tracee>> tracee = Tracee::Seize(tid);
    if (absl::IsNotFound(tracee.status())) return nullptr;
    if (!tracee.ok()) return tracee.status();
    for (int stop = 0; stop < kStopsPerThread && absl::Now() < deadline_; ++stop) {
      ++tries_;
      absl::StatusOr<std::string> why = StopAndJudge(**tracee);
      if (absl::IsNotFound(why.status()) || absl::IsDeadlineExceeded(why.status())) {
        last_reason_ = std::string(why.status().message());
        return nullptr;
      }
      if (!why.ok()) return why.status();
      if (why->empty()) return std::move(*tracee);
      last_reason_ = absl::StrCat("thread ", tid, " ", *why);
      RETURN_IF_ERROR((*tracee)->Continue(0));
      absl::SleepFor(absl::Microseconds(absl::Uniform(random_, kMinPauseMicros, kMaxPauseMicros)));
    }
    return nullptr;
  }

  int tries() const { return tries_; }
  const std::string& last_reason() const { return last_reason_; }

 private:
  // Interrupts the thread and says why the moment is not safe ("" when it is).
  absl::StatusOr<std::string> StopAndJudge(Tracee& tracee) {
    RETURN_IF_ERROR(tracee.Interrupt());
    const absl::Time stop_deadline = std::min(deadline_, absl::Now() + kMaxStopWait);
    int passed_on = 0;
    while (true) {
      ASSIGN_OR_RETURN(const Stop stop, tracee.WaitForStop(stop_deadline));
      if (stop.kind == Stop::Kind::kInterrupt) break;
      if (stop.kind == Stop::Kind::kGroupStop) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the process is stopped (signal ", stop.signal, "); continue it (SIGCONT) first"));
      }
      // A signal on its way to the program goes on now; the interrupt stop follows.
      passed_on = stop.signal;
      RETURN_IF_ERROR(tracee.Continue(stop.signal));
    }
    // That stop comes at the first instruction of the signal's handler, which may have
    // interrupted malloc: the handler is left to finish.
    if (passed_on != 0) return absl::StrCat("was given signal ", passed_on);
    user_regs_struct regs;
    RETURN_IF_ERROR(tracee.Request(PTRACE_GETREGS, nullptr, &regs, "PTRACE_GETREGS"));
    std::string why = WhyNotSafe(regs, glibc_);
    if (why.empty() && InRseqCriticalSection(tracee, memory_, regs.rip)) {
      why = "in an rseq critical section";
    }
    return why;
  }

  const GlibcImage& glibc_;
  const TargetMemory& memory_;
  const absl::Time deadline_;
  absl::BitGen random_;
  int tries_ = 0;
  std::string last_reason_ = "no thread stopped";
};

}  // namespace

std::string WhyNotSafe(const user_regs_struct& regs, const GlibcImage& glibc) {
  const int64_t call = static_cast<int64_t>(regs.orig_rax);
  if (InAny(glibc.loader_or_allocator, regs.rip)) {
    return absl::StrCat("at 0x", absl::Hex(regs.rip), " in the dynamic loader or a malloc");
  }
  if (SwapsSignalMask(regs)) {
    return absl::StrCat("in system call ", call, " with a temporary signal mask");
  }
  if (IsBlockingCall(call)) {
    return call == SYS_futex && IsLockWait(regs) ? "waiting for a lock (futex)" : "";
  }
  if (InAny(glibc.libc, regs.rip)) {
    return absl::StrCat("at 0x", absl::Hex(regs.rip), " in libc.so.6",
                        call >= 0 ? absl::StrCat(" (system call ", call, ")") : "");
  }
  return "";
}

absl::StatusOr<SafeMoment> FindSafeMoment(pid_t pid, const GlibcImage& glibc,
                                          const TargetMemory& memory, absl::Time deadline) {
  SafeMomentSearch search(glibc, memory, deadline);
  while (absl::Now() < deadline) {
    for (const pid_t tid : ListThreads(pid)) {
      ASSIGN_OR_RETURN(std::unique_ptr<Tracee> tracee, search.TryThread(tid));
      if (tracee != nullptr) return SafeMoment{std::move(tracee), search.tries()};
      if (absl::Now() >= deadline) break;
    }
    if (ProcessExited(pid)) {
      return absl::NotFoundError(absl::StrCat("process ", pid, " exited while attaching"));
    }
  }
  return absl::DeadlineExceededError(absl::StrCat("no safe moment to call dlopen in process ", pid,
                                                  " after ", search.tries(),
                                                  " stops; the last: ", search.last_reason()));
}

}  // namespace protond::attach
