// Reads arbitrary bytes as a control connection's stream, frame after frame, into the messages
// each end reads: the daemon a RegisterRequest and then CommandResults (daemon/server/
// control_connection.cc), the process ControlCommands (client-lib/control/registration.cc).
// ReadFrame must answer a message, the end of the stream or an error, and never crash or read out
// of bounds.
//
// The bytes go through a socketpair, the daemon's transport, written by a second thread so that a
// frame larger than the socket's buffer does not block the writer.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <thread>

#include "common/control/control_channel.h"
#include "google/protobuf/stubs/logging.h"
#include "protond.pb.h"

namespace {

// Frames until the end of the stream or an error, as each reader does.
template <typename First, typename Rest>
void ReadStream(int fd) {
  First first;
  absl::StatusOr<bool> read = protond::control::ReadFrame(fd, &first);
  Rest rest;
  while (read.ok() && *read) read = protond::control::ReadFrame(fd, &rest);
}

void Feed(const uint8_t* data, size_t size, void (*read_stream)(int)) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) __builtin_trap();
  std::thread writer([&] {
    size_t done = 0;
    while (done < size) {
      const ssize_t sent = send(fds[1], data + done, size - done, MSG_NOSIGNAL);
      if (sent <= 0) break;  // the reader gave up first
      done += static_cast<size_t>(sent);
    }
    shutdown(fds[1], SHUT_WR);
  });
  read_stream(fds[0]);
  close(fds[0]);  // a writer still sending gets EPIPE
  writer.join();
  close(fds[1]);
}

}  // namespace

// libprotobuf logs every string field that is not UTF-8: quiet, or the log is the run.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Feed(data, size, ReadStream<protond::v1::RegisterRequest, protond::v1::CommandResult>);
  Feed(data, size, ReadStream<protond::v1::ControlCommand, protond::v1::ControlCommand>);
  return 0;
}
