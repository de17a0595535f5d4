#include "daemon/attach/internal/target_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace protond::attach {

absl::StatusOr<TargetMemory> TargetMemory::Open(pid_t pid) {
  const std::string path = absl::StrCat("/proc/", pid, "/mem");
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  return TargetMemory(fd);
}

TargetMemory::~TargetMemory() {
  if (fd_ >= 0) close(fd_);
}

bool TargetMemory::Read(uint64_t address, void* out, size_t size) const {
  // Offsets are addresses; one at or past 2^63 is no user address (pread refuses it).
  return pread64(fd_, out, size, static_cast<off64_t>(address)) == static_cast<ssize_t>(size);
}

absl::Status TargetMemory::Write(uint64_t address, absl::string_view bytes) const {
  if (pwrite64(fd_, bytes.data(), bytes.size(), static_cast<off64_t>(address)) ==
      static_cast<ssize_t>(bytes.size())) {
    return absl::OkStatus();
  }
  return absl::ErrnoToStatus(
      errno, absl::StrCat("cannot write ", bytes.size(), " bytes at 0x", absl::Hex(address)));
}

std::string TargetMemory::ReadString(uint64_t address, size_t max_bytes) const {
  std::string text;
  char c = 0;
  while (text.size() < max_bytes && Read(address + text.size(), &c, 1) && c != '\0') {
    text.push_back(c);
  }
  return text;
}

}  // namespace protond::attach
