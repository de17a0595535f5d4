// Loading a shared library into a running process that did not ask for it (protonctl start --pid
// on a process with nothing preloaded, issue 34): ptrace stops one thread at a moment where calling
// into the C library is safe, makes it call dlopen, dlsym and the library's entry function, and
// puts back every register, the signal mask and errno as they were. x86-64 Linux with glibc.
// The other threads run on throughout. internal/safe_moment.h says which moments are safe,
// internal/remote_call.h how a call is made.
//
// The caller is trusted to have checked that the user it acts for may ptrace the target; this
// part checks only what the kernel and the target's own state say.
//
// All ptrace calls of one LoadLibraryInto run on the calling thread (the kernel ties a tracee to
// the thread that attached it). Nothing here keeps state between calls.
#ifndef PROTOND_DAEMON_ATTACH_REMOTE_LOADER_H_
#define PROTOND_DAEMON_ATTACH_REMOTE_LOADER_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace protond::attach {

struct RemoteLoad {
  // Absolute path of the library as the target's mount namespace sees it.
  std::string library_path;
  // An `extern "C" int ENTRY(const char* argument)` of the library, called once after dlopen on
  // the stopped thread: it must return quickly (start a thread for anything slow). It runs with
  // every signal but the synchronous ones blocked, so a thread it starts begins with them
  // blocked too (the program's signals then never land on it). It must not sleep (nanosleep,
  // clock_nanosleep): their entry resets the thread's restart block, and a sleep of the program
  // that the stop interrupted would end early with EINTR.
  std::string entry_symbol;
  std::string entry_argument;
  // Looking at the process and finding a safe moment get at most this long together, each
  // remote call as long again; a call still running then is waited for up to 10 times as long
  // before it is abandoned (see the errors).
  absl::Duration timeout = absl::Seconds(2);
};

struct LoadResult {
  int entry_returned = 0;    // what ENTRY returned
  pid_t thread = 0;          // the thread that made the calls
  int safe_point_tries = 0;  // stops it took to find a safe moment (1: the first stop was safe)
  absl::Duration took;       // from attaching to detaching
};

// Loads `load.library_path` into process `pid` (dlopen RTLD_NOW; a library already loaded there is
// not loaded again, and ENTRY is still called) and calls ENTRY(entry_argument).
//
// Errors, each one line naming the cause, with the status code in brackets:
//  - the process does not exist or exits while attaching [kNotFound]
//  - ptrace not permitted: Yama's ptrace_scope, another user's process, not dumpable
//    [kPermissionDenied]
//  - already traced by another process (TracerPid), or stopped (SIGSTOP) [kFailedPrecondition]
//  - not a glibc program: statically linked, musl, or no dlopen in its C library
//    [kFailedPrecondition]; still starting (libc.so.6 not mapped yet) after the timeout
//    [kUnavailable]
//  - not x86-64 [kUnimplemented]
//  - no safe moment found within the timeout (every stop was inside the C library or the dynamic
//    loader, or not in a blocking system call) [kDeadlineExceeded]
//  - dlopen failed in the target: dlerror()'s text (seccomp refusing a system call shows here)
//    [kFailedPrecondition]
//  - the library has no ENTRY symbol [kNotFound]
//  - a call crashed (a fault in a constructor of the library or in ENTRY) [kInternal]; a call
//    still running after 10 times the timeout is abandoned [kDeadlineExceeded]. In both, the
//    thread's registers, signal mask and errno are put back and the fault is not delivered, so
//    the program runs on; but what the call held stays held (in dlopen, the loader's lock: the
//    program's next dlopen from another thread would wait for ever). A dlopen cannot be backed
//    out of halfway; the alternatives were to kill the program or to hang the daemon.
//  - a malformed request: a relative path, a NUL byte, this process itself [kInvalidArgument]
// After any other error the process runs on as before: nothing of it was changed, or everything
// was put back (a dlopen that succeeded before a later step failed stays loaded).
//
// Known limits (what the safe-moment rules cannot see, internal/safe_moment.h):
//  - a stop in program code that was called with a libc lock held further up the stack (a
//    signal handler that interrupted malloc, a dl_iterate_phdr callback) looks safe; right after
//    passing a signal on, a stop is not taken, which avoids the likeliest case;
//  - a malloc replacement linked into the executable itself is not recognized (one in a library
//    whose name says malloc, or a sanitizer runtime, is);
//  - a blocking call that the stop interrupts and that the kernel does not restart (epoll_wait,
//    sigtimedwait, a socket with a receive timeout) returns EINTR to the program, as under any
//    debugger's attach;
//  - if protond dies while a call runs, the thread returns to address 0 when the call ends, and
//    the program dies of that SIGSEGV.
absl::StatusOr<LoadResult> LoadLibraryInto(pid_t pid, const RemoteLoad& load);

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_REMOTE_LOADER_H_
