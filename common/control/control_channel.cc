#include "common/control/control_channel.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace protond::control {
namespace {

absl::Status WriteAll(int fd, const char* data, size_t bytes) {
  while (bytes > 0) {
    const ssize_t written = send(fd, data, bytes, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return absl::ErrnoToStatus(errno, "writing to the control connection");
    data += written;
    bytes -= static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

// Reads exactly `bytes`; returns how many arrived before the peer closed (less on a close).
absl::StatusOr<size_t> ReadAll(int fd, char* data, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    const ssize_t got = read(fd, data + done, bytes - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return absl::ErrnoToStatus(errno, "reading the control connection");
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

}  // namespace

absl::StatusOr<int> ConnectControl(const std::string& socket_path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path ", socket_path, " is too long"));
  }
  std::strcpy(address.sun_path, socket_path.c_str());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const absl::Status status =
        absl::ErrnoToStatus(errno, absl::StrCat("connecting to ", socket_path));
    close(fd);
    return status;
  }
  if (absl::Status sent = WriteAll(fd, kControlMagic, kControlMagicBytes); !sent.ok()) {
    close(fd);
    return sent;
  }
  return fd;
}

absl::Status WriteFrame(int fd, const google::protobuf::MessageLite& message) {
  std::string frame(4, '\0');
  const auto length = static_cast<uint32_t>(message.ByteSizeLong());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(length >> (8 * i));
  if (!message.AppendToString(&frame)) return absl::InternalError("cannot serialize a frame");
  return WriteAll(fd, frame.data(), frame.size());
}

absl::StatusOr<bool> ReadFrame(int fd, google::protobuf::MessageLite* message) {
  unsigned char header[4];
  absl::StatusOr<size_t> got = ReadAll(fd, reinterpret_cast<char*>(header), sizeof(header));
  if (!got.ok()) return got.status();
  if (*got == 0) return false;
  if (*got < sizeof(header)) return absl::DataLossError("the control connection cut a frame");
  const uint32_t length = header[0] | header[1] << 8 | header[2] << 16 | uint32_t{header[3]} << 24;
  if (length > kMaxFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("control frame of ", length, " bytes, more than ", kMaxFrameBytes));
  }
  std::string body(length, '\0');
  got = ReadAll(fd, body.data(), length);
  if (!got.ok()) return got.status();
  if (*got < length) return absl::DataLossError("the control connection cut a frame");
  if (!message->ParseFromString(body)) {
    return absl::InvalidArgumentError("a control frame is not the message expected");
  }
  return true;
}

}  // namespace protond::control
