#include "daemon/attach/target_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/files/read_file.h"
#include "daemon/attach/internal/proc_facts.h"

namespace protond::attach {
namespace {

constexpr int kCapSysPtrace = 19;  // linux/capability.h

// Yama's scope 1: a process may trace its descendants only.
bool IsAncestor(pid_t ancestor, pid_t pid) {
  for (int depth = 0; pid > 1 && depth < 4096; ++depth) {
    const absl::StatusOr<ProcessStatus> status = ReadProcessStatus(pid);
    if (!status.ok()) return false;
    pid = status->parent;
    if (pid == ancestor) return true;
  }
  return false;
}

// What the mappings say: its C library, CUDA, a shim of its own.
void NoteMappings(const std::vector<Mapping>& mappings, TargetState* state) {
  for (const Mapping& mapping : mappings) {
    const std::string_view file =
        std::string_view(mapping.path).substr(mapping.path.rfind('/') + 1);
    if (file == "libc.so.6") state->glibc = true;
    if (file.starts_with("libcuda.so")) state->cuda = true;
    if (file == "libprotond_shim.so") state->shim_mapped = mapping.path;
  }
}

std::string ReadCommand(pid_t pid) {
  std::string command =
      files::ReadWholeFile(absl::StrCat("/proc/", pid, "/cmdline"), "").value_or("");
  while (!command.empty() && command.back() == '\0') command.pop_back();
  std::replace(command.begin(), command.end(), '\0', ' ');
  return command;
}

}  // namespace

Caller CallerOf(pid_t pid, uid_t uid) {
  const absl::StatusOr<ProcessStatus> status = ReadProcessStatus(pid);
  const bool capable = status.ok() && (status->effective_capabilities >> kCapSysPtrace & 1) != 0;
  return {.pid = pid, .uid = uid, .privileged = uid == 0 || capable};
}

bool ReadTargetState(pid_t pid, TargetState* state) {
  if (pid <= 0) return false;
  const absl::StatusOr<ProcessStatus> status = ReadProcessStatus(pid);
  if (!status.ok()) return false;
  *state = TargetState();
  state->pid = pid;
  state->real_uid = status->real_uid;
  state->effective_uid = status->effective_uid;
  state->saved_uid = status->saved_uid;
  state->tracer = status->tracer;
  state->seccomp = status->seccomp_filter;
  // A process that is not dumpable has its /proc files owned by root (proc(5)).
  struct stat proc_stat;
  state->dumpable = stat(absl::StrCat("/proc/", pid, "/stat").c_str(), &proc_stat) != 0 ||
                    proc_stat.st_uid == state->effective_uid;
  NoteMappings(ReadMappings(pid).value_or(std::vector<Mapping>()), state);
  state->command = ReadCommand(pid);
  return true;
}

int YamaPtraceScope() {
  int scope = -1;
  const absl::StatusOr<std::string> text =
      files::ReadWholeFile("/proc/sys/kernel/yama/ptrace_scope", "");
  return text.ok() && absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &scope) ? scope : -1;
}

std::string WhyCallerMayNotTrace(const Caller& caller, const TargetState& target, int yama_scope) {
  if (yama_scope >= 3) {
    return "ptrace is off on this node (kernel.yama.ptrace_scope is 3): no process can be attached";
  }
  if (caller.privileged) return "";
  if (target.real_uid != caller.uid || target.effective_uid != caller.uid ||
      target.saved_uid != caller.uid) {
    return absl::StrCat("another user's process (uid ", target.real_uid,
                        "): only its user or root may attach to it");
  }
  if (!target.dumpable) {
    return "not dumpable (a set-uid program, or one that called prctl(PR_SET_DUMPABLE, 0)): only "
           "root may attach to it";
  }
  if (yama_scope == 2) {
    return "kernel.yama.ptrace_scope is 2: only root (CAP_SYS_PTRACE) may attach to a process";
  }
  if (yama_scope == 1 && !IsAncestor(caller.pid, target.pid)) {
    return "kernel.yama.ptrace_scope is 1: a user may attach only to its own descendants; ask as "
           "root (sudo protonctl ...), or set the sysctl to 0";
  }
  return "";
}

std::string WhyShimCannotLoad(const TargetState& target, const std::string& shim_path) {
  if (target.tracer != 0) {
    return absl::StrCat("already traced by process ", target.tracer, " (a debugger?)");
  }
  if (!target.glibc) {
    return "not a glibc program (statically linked, or another C library): the shim cannot be "
           "loaded into it";
  }
  if (!target.shim_mapped.empty()) {
    return absl::StrCat("protond's shim is loaded (", target.shim_mapped,
                        ") but not connected to this protond: another socket (PROTOND_SOCKET), "
                        "PROTOND_DISABLE, or an older shim");
  }
  struct stat ours;
  if (stat(shim_path.c_str(), &ours) != 0) {
    return absl::StrCat("protond's shim is missing at ", shim_path);
  }
  if (!SameLibrary(shim_path, absl::StrCat("/proc/", target.pid, "/root", shim_path))) {
    return absl::StrCat(
        "its filesystem (another mount namespace: a container?) does not have protond's shim at ",
        shim_path);
  }
  return "";
}

bool SameLibrary(const std::string& ours, const std::string& theirs) {
  struct stat our_file;
  if (stat(ours.c_str(), &our_file) != 0) return false;
  // `theirs` lies in a filesystem the process controls: a FIFO there must not hang protond, nor a
  // file swapped in after a check, so the very file opened is the one checked.
  const int fd = open(theirs.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat their_file;
  bool same = fstat(fd, &their_file) == 0 && S_ISREG(their_file.st_mode) &&
              their_file.st_size == our_file.st_size;
  if (same && (our_file.st_dev != their_file.st_dev || our_file.st_ino != their_file.st_ino)) {
    const absl::StatusOr<std::string> our_bytes = files::ReadWholeFile(ours, "");
    std::string their_bytes(static_cast<size_t>(their_file.st_size), '\0');
    same = our_bytes.ok() &&
           pread(fd, their_bytes.data(), their_bytes.size(), 0) ==
               static_cast<ssize_t>(their_bytes.size()) &&
           *our_bytes == their_bytes;
  }
  close(fd);
  return same;
}

std::vector<pid_t> ProcessesWithCudaMapped() {
  std::vector<pid_t> pids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    TargetState state;
    NoteMappings(ReadMappings(pid).value_or(std::vector<Mapping>()), &state);
    if (state.cuda) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace protond::attach
