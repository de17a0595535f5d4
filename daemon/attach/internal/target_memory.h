// Another process's memory through /proc/PID/mem: reads of its libc's tables, the strings
// handed to dlopen and dlsym, errno, and dlerror's message. Writing needs the process traced (or
// the caller privileged); reading needs the permission to trace it.
#ifndef PROTOND_DAEMON_ATTACH_INTERNAL_TARGET_MEMORY_H_
#define PROTOND_DAEMON_ATTACH_INTERNAL_TARGET_MEMORY_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::attach {

class TargetMemory {
 public:
  // kNotFound when the process is gone, kPermissionDenied when it may not be traced.
  static absl::StatusOr<TargetMemory> Open(pid_t pid);
  TargetMemory(TargetMemory&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  TargetMemory& operator=(TargetMemory&&) = delete;
  ~TargetMemory();

  // False unless all `size` bytes at `address` were read.
  bool Read(uint64_t address, void* out, size_t size) const;
  absl::Status Write(uint64_t address, absl::string_view bytes) const;
  // The NUL-terminated string at `address`, cut at `max_bytes` or where memory stops being
  // readable (read a byte at a time: the string may end just before an unmapped page).
  std::string ReadString(uint64_t address, size_t max_bytes) const;

 private:
  explicit TargetMemory(int fd) : fd_(fd) {}

  int fd_;
};

}  // namespace protond::attach

#endif  // PROTOND_DAEMON_ATTACH_INTERNAL_TARGET_MEMORY_H_
