#include "daemon/attach/internal/proc_facts.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/files/read_file.h"

namespace protond::attach {
namespace {

std::string ProcPath(pid_t pid, absl::string_view file) {
  return absl::StrCat("/proc/", pid, "/", file);
}

// A /proc file of the process; a missing one means the process is gone.
absl::StatusOr<std::string> ReadProcFile(pid_t pid, absl::string_view file) {
  absl::StatusOr<std::string> text = files::ReadWholeFile(ProcPath(pid, file), "");
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(absl::StrCat("process ", pid, " does not exist"));
  }
  if (absl::IsPermissionDenied(text.status())) {
    return absl::PermissionDeniedError(absl::StrCat("cannot read ", ProcPath(pid, file),
                                                    ": another user's process, or not dumpable"));
  }
  return text;
}

absl::string_view BaseName(absl::string_view path) { return path.substr(path.rfind('/') + 1); }

// Libraries that replace malloc: while a thread runs them it may hold their lock, and dlopen
// allocates through them.
bool ReplacesMalloc(absl::string_view name) {
  return absl::StrContains(name, "malloc") || absl::StartsWith(name, "libasan.") ||
         absl::StartsWith(name, "libtsan.") || absl::StartsWith(name, "libhwasan.") ||
         absl::StartsWith(name, "liblsan.");
}

bool IsGlibcLoader(absl::string_view name) { return absl::StartsWith(name, "ld-linux"); }

}  // namespace

absl::StatusOr<ProcessStatus> ReadProcessStatus(pid_t pid) {
  absl::StatusOr<std::string> text = ReadProcFile(pid, "status");
  if (!text.ok()) return text.status();
  ProcessStatus status;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (absl::ConsumePrefix(&line, "State:")) {
      line = absl::StripLeadingAsciiWhitespace(line);
      if (!line.empty()) status.state = line[0];
    } else if (absl::ConsumePrefix(&line, "TracerPid:")) {
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &status.tracer)) status.tracer = 0;
    } else if (absl::ConsumePrefix(&line, "PPid:")) {
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &status.parent)) status.parent = 0;
    } else if (absl::ConsumePrefix(&line, "Uid:")) {
      const std::vector<absl::string_view> uids =
          absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
      if (uids.size() < 3 || !absl::SimpleAtoi(uids[0], &status.real_uid) ||
          !absl::SimpleAtoi(uids[1], &status.effective_uid) ||
          !absl::SimpleAtoi(uids[2], &status.saved_uid)) {
        return absl::DataLossError(absl::StrCat("/proc/", pid, "/status: Uid:", line));
      }
    } else if (absl::ConsumePrefix(&line, "CapEff:")) {
      if (!absl::SimpleHexAtoi(absl::StripAsciiWhitespace(line), &status.effective_capabilities)) {
        status.effective_capabilities = 0;
      }
    } else if (absl::ConsumePrefix(&line, "Seccomp:")) {
      status.seccomp_filter = absl::StripAsciiWhitespace(line) == "2";
    }
  }
  return status;
}

bool ThreadExited(pid_t tid) {
  constexpr uint64_t kExiting = 0x4;  // PF_EXITING of <linux/sched.h>
  absl::StatusOr<std::string> stat = ReadProcFile(tid, "stat");
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags ..."; comm may hold spaces and ')'.
  const size_t comm_end = stat.ok() ? stat->rfind(')') : std::string::npos;
  if (comm_end == std::string::npos) return true;
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(*stat).substr(comm_end + 1), ' ', absl::SkipEmpty());
  uint64_t flags = 0;
  if (fields.size() < 7 || !absl::SimpleAtoi(fields[6], &flags)) return true;
  return fields[0] == "Z" || fields[0] == "X" || (flags & kExiting) != 0;
}

bool ProcessExited(pid_t pid) {
  const std::vector<pid_t> threads = ListThreads(pid);
  return std::all_of(threads.begin(), threads.end(), ThreadExited);
}

std::vector<Mapping> ParseMappings(absl::string_view maps) {
  std::vector<Mapping> mappings;
  for (absl::string_view line : absl::StrSplit(maps, '\n', absl::SkipEmpty())) {
    // start-end perms offset dev inode [path]
    const std::string text(line);
    Mapping mapping;
    int path_at = 0;
    if (std::sscanf(text.c_str(), "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*u %n",
                    &mapping.range.start, &mapping.range.end, &mapping.offset, &path_at) < 3 ||
        path_at == 0) {
      continue;
    }
    absl::string_view path = absl::StripAsciiWhitespace(line.substr(path_at));
    // A library replaced on disk while the process runs (a package upgrade) is still the one
    // mapped.
    absl::ConsumeSuffix(&path, " (deleted)");
    mapping.path = std::string(path);
    mappings.push_back(std::move(mapping));
  }
  return mappings;
}

absl::StatusOr<std::vector<Mapping>> ReadMappings(pid_t pid) {
  absl::StatusOr<std::string> text = ReadProcFile(pid, "maps");
  if (!text.ok()) return text.status();
  return ParseMappings(*text);
}

absl::StatusOr<GlibcImage> FindGlibc(const std::vector<Mapping>& mappings) {
  GlibcImage image;
  std::string other_c_library;
  bool loader_mapped = false;
  for (const Mapping& mapping : mappings) {
    const absl::string_view name = BaseName(mapping.path);
    if (name == "libc.so.6" && mapping.offset == 0 && image.libc_base == 0) {
      image.libc_base = mapping.range.start;
    }
    if (absl::StartsWith(name, "ld-musl-") || absl::StartsWith(name, "libc.musl-")) {
      other_c_library = std::string(name);
    }
    loader_mapped = loader_mapped || IsGlibcLoader(name);
    if (name == "libc.so.6") image.libc.push_back(mapping.range);
    if (IsGlibcLoader(name) || ReplacesMalloc(name)) {
      image.loader_or_allocator.push_back(mapping.range);
    }
  }
  if (image.libc_base != 0) return image;
  if (!other_c_library.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("not a glibc program: its C library is musl (", other_c_library, " mapped)"));
  }
  if (loader_mapped) {
    return absl::UnavailableError("still starting: ld-linux is mapped, libc.so.6 not yet");
  }
  return absl::FailedPreconditionError(
      "not a glibc 2.34+ program: no libc.so.6 mapped (statically linked, an older glibc, or "
      "another C library)");
}

absl::Status CheckX86_64(pid_t pid) {
  const std::string path = ProcPath(pid, "exe");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path, " (process ", pid,
                                                   " exited, or a kernel thread)"));
  }
  Elf64_Ehdr header = {};
  const ssize_t got = pread(fd, &header, sizeof(header), 0);
  close(fd);
  // e_ident and e_machine sit at the same offsets in 32- and 64-bit headers.
  if (got < static_cast<ssize_t>(offsetof(Elf64_Ehdr, e_version)) ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_machine != EM_X86_64) {
    return absl::UnimplementedError(absl::StrCat(
        "process ", pid, " is not an x86-64 program (ELF class ",
        static_cast<int>(header.e_ident[EI_CLASS]), ", machine ", header.e_machine, ")"));
  }
  return absl::OkStatus();
}

std::vector<pid_t> ListThreads(pid_t pid) {
  std::vector<pid_t> threads = {pid};
  DIR* dir = opendir(ProcPath(pid, "task").c_str());
  if (dir == nullptr) return threads;
  while (const dirent* entry = readdir(dir)) {
    pid_t tid = 0;
    if (absl::SimpleAtoi(entry->d_name, &tid) && tid != pid) threads.push_back(tid);
  }
  closedir(dir);
  return threads;
}

std::string DescribePtraceScope() {
  constexpr const char* kYama = "/proc/sys/kernel/yama/ptrace_scope";
  absl::StatusOr<std::string> scope = files::ReadWholeFile(kYama, "");
  if (!scope.ok()) return "ptrace not permitted (another user's process, or not dumpable)";
  return absl::StrCat("ptrace not permitted: Yama's ptrace_scope is ",
                      absl::StripAsciiWhitespace(*scope), " (", kYama,
                      "; 1 allows tracing descendants only, 2 needs CAP_SYS_PTRACE, 3 none)");
}

}  // namespace protond::attach
