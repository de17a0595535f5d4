#include "daemon/attach/remote_loader.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status/status_macros.h"
#include "daemon/attach/internal/elf_symbols.h"
#include "daemon/attach/internal/proc_facts.h"
#include "daemon/attach/internal/remote_call.h"
#include "daemon/attach/internal/safe_moment.h"
#include "daemon/attach/internal/target_memory.h"
#include "daemon/attach/internal/tracee.h"

namespace protond::attach {
namespace {

constexpr size_t kMaxStringBytes = 64 * 1024;
constexpr size_t kMaxDlerrorBytes = 4096;
// dlopen, the constructors of the library and of what it pulls in, and ENTRY run on a stack of
// their own in the target: the stopped thread's may be small (a signal handler's alternate
// stack, a coroutine's) or nearly used up. Pages never touched cost nothing.
constexpr uint64_t kCallStackBytes = 1 << 20;
// __errno_location, mmap and munmap need a few bytes of the thread's own stack: below its red
// zone (128 bytes a leaf function may use without moving rsp), with room to spare.
constexpr uint64_t kBelowRedZoneBytes = 128 + 512;

struct LibcFunctions {
  uint64_t dlopen = 0;
  uint64_t dlsym = 0;
  uint64_t dlerror = 0;
  uint64_t errno_location = 0;
  uint64_t mmap = 0;
  uint64_t munmap = 0;
};

uint64_t AlignDown16(uint64_t address) { return address & ~uint64_t{15}; }

absl::Status WithPrefix(const absl::Status& status, absl::string_view prefix) {
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

absl::Status CheckRequest(pid_t pid, const RemoteLoad& load) {
  if (pid <= 0 || pid == getpid()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load a library into process ", pid));
  }
  if (!absl::StartsWith(load.library_path, "/") || load.entry_symbol.empty() ||
      load.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("need an absolute library path (not \"",
                                                   load.library_path,
                                                   "\"), an entry symbol and a positive timeout"));
  }
  for (const std::string* text : {&load.library_path, &load.entry_symbol, &load.entry_argument}) {
    if (text->size() > kMaxStringBytes || text->find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("a string of ", text->size(), " bytes, or with a NUL byte, for the target"));
    }
  }
  return absl::OkStatus();
}

// The refusals that need no ptrace: state, tracer, architecture, C library.
absl::StatusOr<GlibcImage> InspectProcess(pid_t pid, absl::Time deadline) {
  ASSIGN_OR_RETURN(const ProcessStatus status, ReadProcessStatus(pid));
  if (ProcessExited(pid)) return absl::NotFoundError(absl::StrCat("process ", pid, " has exited"));
  if (status.tracer != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "process ", pid, " is already traced by process ", status.tracer, " (TracerPid)"));
  }
  if (status.state == 'T') {
    return absl::FailedPreconditionError(
        absl::StrCat("process ", pid, " is stopped; continue it (SIGCONT) first"));
  }
  RETURN_IF_ERROR(CheckX86_64(pid));
  while (true) {
    ASSIGN_OR_RETURN(const std::vector<Mapping> mappings, ReadMappings(pid));
    if (mappings.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "process ", pid, " has no memory mappings: it exited, or it is a kernel thread"));
    }
    absl::StatusOr<GlibcImage> glibc = FindGlibc(mappings);
    // A process that is starting maps libc.so.6 within milliseconds.
    if (!absl::IsUnavailable(glibc.status()) || absl::Now() >= deadline) {
      if (glibc.ok()) return glibc;
      return WithPrefix(glibc.status(), absl::StrCat("process ", pid, ": "));
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
}

// dlopen and the rest, found in the target's libc.so.6 as mapped (a container's own).
absl::StatusOr<LibcFunctions> ResolveLibcFunctions(pid_t pid, const TargetMemory& memory,
                                                   uint64_t libc_base) {
  const auto read = [&memory](uint64_t address, void* out, size_t size) {
    return memory.Read(address, out, size);
  };
  const std::string where = absl::StrCat("libc.so.6 of process ", pid, ": ");
  absl::StatusOr<DynamicTables> tables = ReadDynamicTables(read, libc_base);
  if (!tables.ok()) return WithPrefix(tables.status(), where);
  LibcFunctions libc;
  for (const auto& [name, address] : {std::pair{"dlopen", &libc.dlopen},
                                      {"dlsym", &libc.dlsym},
                                      {"dlerror", &libc.dlerror},
                                      {"__errno_location", &libc.errno_location},
                                      {"mmap", &libc.mmap},
                                      {"munmap", &libc.munmap}}) {
    absl::StatusOr<uint64_t> found = FindFunction(read, *tables, name);
    if (absl::IsNotFound(found.status())) {
      return absl::FailedPreconditionError(
          absl::StrCat("not a glibc 2.34+ program: ", where, "no ", name));
    }
    if (!found.ok()) return WithPrefix(found.status(), where);
    *address = *found;
  }
  return libc;
}

// Writes `text` and its NUL below `*top`, moves `*top` down to it and returns its address.
absl::StatusOr<uint64_t> PushString(const TargetMemory& memory, absl::string_view text,
                                    uint64_t* top) {
  *top -= text.size() + 1;
  RETURN_IF_ERROR(memory.Write(*top, absl::StrCat(text, absl::string_view("\0", 1))));
  return *top;
}

// The calls that load the library and run ENTRY, on the calls' own stack below `stack_top`.
class LibraryCalls {
 public:
  LibraryCalls(RemoteCaller& caller, const TargetMemory& memory, const LibcFunctions& libc)
      : caller_(caller), memory_(memory), libc_(libc) {}

  absl::StatusOr<int> Run(const RemoteLoad& load, uint64_t stack_top) {
    uint64_t top = stack_top;
    ASSIGN_OR_RETURN(const uint64_t path, PushString(memory_, load.library_path, &top));
    ASSIGN_OR_RETURN(const uint64_t symbol, PushString(memory_, load.entry_symbol, &top));
    ASSIGN_OR_RETURN(const uint64_t argument, PushString(memory_, load.entry_argument, &top));
    top = AlignDown16(top);
    ASSIGN_OR_RETURN(const uint64_t handle,
                     caller_.Call("dlopen", libc_.dlopen, {path, RTLD_NOW}, top));
    if (handle == 0) {
      ASSIGN_OR_RETURN(const std::string error, DlError(top));
      return absl::FailedPreconditionError(absl::StrCat("dlopen failed in the target: ", error));
    }
    ASSIGN_OR_RETURN(const uint64_t entry,
                     caller_.Call("dlsym", libc_.dlsym, {handle, symbol}, top));
    if (entry == 0) {
      // dlerror also clears the thread's pending error, which the program might read later.
      ASSIGN_OR_RETURN(const std::string error, DlError(top));
      return absl::NotFoundError(
          absl::StrCat(load.library_path, " has no entry symbol ", load.entry_symbol, ": ", error));
    }
    ASSIGN_OR_RETURN(const uint64_t returned,
                     caller_.Call(load.entry_symbol, entry, {argument}, top));
    return static_cast<int>(static_cast<uint32_t>(returned));  // an int comes back in eax
  }

 private:
  absl::StatusOr<std::string> DlError(uint64_t stack_top) {
    ASSIGN_OR_RETURN(const uint64_t message, caller_.Call("dlerror", libc_.dlerror, {}, stack_top));
    return message == 0 ? std::string("(no message)")
                        : memory_.ReadString(message, kMaxDlerrorBytes);
  }

  RemoteCaller& caller_;
  const TargetMemory& memory_;
  const LibcFunctions& libc_;
};

// Every call, with errno saved before and written back after, and the calls' stack mapped and
// unmapped around the library's calls. Returns what ENTRY returned.
absl::StatusOr<int> RunCalls(RemoteCaller& caller, const TargetMemory& memory,
                             const LibcFunctions& libc, const ThreadState& saved,
                             const RemoteLoad& load) {
  const uint64_t own_stack = AlignDown16(saved.regs.rsp - kBelowRedZoneBytes);
  // errno is thread-local: its address comes from the thread itself.
  ASSIGN_OR_RETURN(const uint64_t errno_address,
                   caller.Call("__errno_location", libc.errno_location, {}, own_stack));
  int saved_errno = 0;
  if (!memory.Read(errno_address, &saved_errno, sizeof(saved_errno))) {
    return absl::InternalError(absl::StrCat("cannot read errno at 0x", absl::Hex(errno_address)));
  }
  ASSIGN_OR_RETURN(
      const uint64_t stack,
      caller.Call("mmap", libc.mmap,
                  {0, kCallStackBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, ~uint64_t{0}, 0},
                  own_stack));
  absl::StatusOr<int> entry = absl::ResourceExhaustedError(
      absl::StrCat("mmap of ", kCallStackBytes, " bytes for the calls' stack failed"));
  if (stack != reinterpret_cast<uint64_t>(MAP_FAILED)) {
    entry = LibraryCalls(caller, memory, libc).Run(load, stack + kCallStackBytes);
    absl::StatusOr<uint64_t> unmapped =
        caller.Call("munmap", libc.munmap, {stack, kCallStackBytes}, own_stack);
    if (entry.ok() && !unmapped.ok()) entry = unmapped.status();
  }
  const absl::Status errno_restored = memory.Write(
      errno_address,
      absl::string_view(reinterpret_cast<const char*>(&saved_errno), sizeof(saved_errno)));
  if (entry.ok() && !errno_restored.ok()) return errno_restored;
  return entry;
}

// Puts the thread back and lets it go. Signals it could not block during the calls (SIGSTOP,
// ...) were taken from it; they are sent again, by tgkill, after the detach.
absl::Status RestoreAndDetach(pid_t pid, Tracee& tracee, const ThreadState& saved,
                              const std::vector<siginfo_t>& held) {
  RETURN_IF_ERROR(RestoreThreadState(tracee, saved));
  RETURN_IF_ERROR(tracee.Detach(0));
  for (const siginfo_t& info : held) syscall(SYS_tgkill, pid, tracee.tid(), info.si_signo);
  return absl::OkStatus();
}

absl::StatusOr<LoadResult> Load(pid_t pid, const RemoteLoad& load) {
  const absl::Time deadline = absl::Now() + load.timeout;
  ASSIGN_OR_RETURN(const GlibcImage glibc, InspectProcess(pid, deadline));
  ASSIGN_OR_RETURN(const TargetMemory memory, TargetMemory::Open(pid));
  ASSIGN_OR_RETURN(const LibcFunctions libc, ResolveLibcFunctions(pid, memory, glibc.libc_base));
  const absl::Time attached = absl::Now();
  ASSIGN_OR_RETURN(SafeMoment moment, FindSafeMoment(pid, glibc, memory, deadline));
  ASSIGN_OR_RETURN(const ThreadState saved, SaveThreadState(*moment.tracee));
  RemoteCaller caller(*moment.tracee, memory, saved, load.timeout);
  const absl::StatusOr<int> entry = RunCalls(caller, memory, libc, saved, load);
  const absl::Status detached = RestoreAndDetach(pid, *moment.tracee, saved, caller.held_signals());
  if (!entry.ok()) return entry.status();
  RETURN_IF_ERROR(detached);
  return LoadResult{.entry_returned = *entry,
                    .thread = moment.tracee->tid(),
                    .safe_point_tries = moment.tries,
                    .took = absl::Now() - attached};
}

}  // namespace

absl::StatusOr<LoadResult> LoadLibraryInto(pid_t pid, const RemoteLoad& load) {
  RETURN_IF_ERROR(CheckRequest(pid, load));
  absl::StatusOr<LoadResult> result = Load(pid, load);
  // A process that ends meanwhile fails whichever step was reading it, each in its own way.
  if (!result.ok() && !absl::IsNotFound(result.status()) && ProcessExited(pid)) {
    return absl::NotFoundError(
        absl::StrCat("process ", pid, " exited while attaching (", result.status().message(), ")"));
  }
  return result;
}

}  // namespace protond::attach
