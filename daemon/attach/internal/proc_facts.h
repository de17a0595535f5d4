// What /proc says about a process before the loader touches it: its state and tracer, its
// mappings (where its C library and dynamic loader are), its architecture and its threads.
// Reading a process's maps and exe needs the same permission as tracing it.
#ifndef PROTOND_DAEMON_ATTACH_INTERNAL_PROC_FACTS_H_
#define PROTOND_DAEMON_ATTACH_INTERNAL_PROC_FACTS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::attach {

struct ProcessStatus {
  char state = '?';  // as ps shows it: R, S, D, T (stopped), t (tracing stop), Z, X
  pid_t tracer = 0;  // TracerPid; 0: not traced
  pid_t parent = 0;  // PPid
  uid_t real_uid = 0, effective_uid = 0, saved_uid = 0;
  uint64_t effective_capabilities = 0;  // CapEff
  bool seccomp_filter = false;          // Seccomp: 2
};

// kNotFound when the process does not exist.
absl::StatusOr<ProcessStatus> ReadProcessStatus(pid_t pid);

// Whether the thread is gone, a zombie, or on its way out (PF_EXITING: its memory may be gone
// already while its state still says running).
bool ThreadExited(pid_t tid);
// Whether every thread of the process did (a main thread may end before the others).
bool ProcessExited(pid_t pid);

struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;  // one past the last byte
  bool Contains(uint64_t address) const { return address >= start && address < end; }
};

struct Mapping {
  AddressRange range;
  uint64_t offset = 0;  // in the mapped file
  std::string path;     // "" for anonymous memory; " (deleted)" is taken off
};

// The lines of /proc/PID/maps; a line that does not parse is left out.
std::vector<Mapping> ParseMappings(absl::string_view maps);
absl::StatusOr<std::vector<Mapping>> ReadMappings(pid_t pid);

// The C library of a process that the loader can call dlopen in.
struct GlibcImage {
  uint64_t libc_base = 0;  // where libc.so.6's ELF header is mapped
  // Where a thread may hold a lock that dlopen needs. In libc.so.6 (malloc's arena locks), not
  // while it waits in a blocking system call; in ld-linux (the loader's lock) and in libraries
  // that replace malloc (their own locks), at any time.
  std::vector<AddressRange> libc;
  std::vector<AddressRange> loader_or_allocator;
};

// kFailedPrecondition where the process has no glibc 2.34+ (statically linked, musl, ...);
// kUnavailable while it is still starting (ld-linux mapped, libc.so.6 not yet).
absl::StatusOr<GlibcImage> FindGlibc(const std::vector<Mapping>& mappings);

// kUnimplemented unless /proc/PID/exe is a 64-bit x86-64 ELF program.
absl::Status CheckX86_64(pid_t pid);

// The process's threads, `pid` first (the main thread, unless `pid` names another).
std::vector<pid_t> ListThreads(pid_t pid);

// Why ptrace may be refused: Yama's ptrace_scope where the kernel has Yama.
std::string DescribePtraceScope();

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_INTERNAL_PROC_FACTS_H_
