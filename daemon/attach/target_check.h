// Whether protond may load its shim into a running process on behalf of a caller (issue 34,
// docs/attach.md), decided from /proc alone, before anything touches the process: with the
// caller's credentials, never the daemon's own (a root protond must not lend its privilege), and
// the process's own state (already traced, its C library, a shim of its own, a filesystem without
// protond's). The same answers label `protonctl processes --all`.
#ifndef PROTOND_DAEMON_ATTACH_TARGET_CHECK_H_
#define PROTOND_DAEMON_ATTACH_TARGET_CHECK_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace protond::attach {

// Who asks: a process on this node (protonctl), from the unix socket's peer credentials.
struct Caller {
  pid_t pid = 0;
  uid_t uid = 0;
  bool privileged = false;  // root, or CAP_SYS_PTRACE in its effective set
};

// The caller of process `pid` and user `uid`, with its privilege read from /proc.
Caller CallerOf(pid_t pid, uid_t uid);

// What /proc/PID/status and /proc/PID/maps say about a process, as far as attaching goes.
struct TargetState {
  pid_t pid = 0;
  uid_t real_uid = 0, effective_uid = 0, saved_uid = 0;
  pid_t tracer = 0;         // TracerPid: 0 when none
  bool seccomp = false;     // a seccomp filter (mode 2) is on
  bool dumpable = true;     // false: /proc/PID belongs to root while the process does not
  bool glibc = false;       // libc.so.6 is mapped
  bool cuda = false;        // libcuda.so is mapped
  std::string shim_mapped;  // the path of a libprotond_shim.so already mapped, or ""
  std::string command;      // /proc/PID/cmdline, arguments joined by spaces
};

// Reads the state of `pid`; false when the process does not exist (or its status cannot be read,
// which for /proc/PID/status means it has gone).
bool ReadTargetState(pid_t pid, TargetState* state);

// The Yama LSM's kernel.yama.ptrace_scope: 0 to 3, or -1 without Yama.
int YamaPtraceScope();

// Why `caller` may not trace the process, as the kernel would decide for the caller itself
// (same user on all three uids and dumpable, or privileged; Yama's scope), or "" when it may.
// `yama_scope` as YamaPtraceScope() returns it.
std::string WhyCallerMayNotTrace(const Caller& caller, const TargetState& target, int yama_scope);

// Why protond's shim at `shim_path` cannot be loaded into the process, judging from its state and
// its filesystem (/proc/PID/root must hold the same library at `shim_path`), or "".
std::string WhyShimCannotLoad(const TargetState& target, const std::string& shim_path);

// Whether the files at `ours` and `theirs` are the same library: the same file, or one with the
// same bytes (a copy, as a Kubernetes node's hostPath holds the daemon image's shim for the pods).
bool SameLibrary(const std::string& ours, const std::string& theirs);

// The processes that have libcuda mapped and whose /proc files this daemon may read.
std::vector<pid_t> ProcessesWithCudaMapped();

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_TARGET_CHECK_H_
