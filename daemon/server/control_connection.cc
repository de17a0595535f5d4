#include "daemon/server/control_connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/control/control_channel.h"

namespace protond::server {
namespace {

// A registration must arrive promptly; a frame, once begun, must finish.
constexpr timeval kReadTimeout = {2, 0};
// How often the connection checks, between commands, for answers and for the process's end.
constexpr auto kCommandWait = std::chrono::milliseconds(20);

void Refuse(int fd, const service::Peer& peer, const absl::Status& status) {
  std::fprintf(stderr, "protond: pid %u: registration refused: %s\n", peer.pid,
               status.ToString().c_str());
  v1::ControlCommand refused;
  refused.mutable_refused()->set_code(static_cast<int>(status.code()));
  refused.mutable_refused()->set_message(std::string(status.message()));
  (void)control::WriteFrame(fd, refused);  // the connection ends either way
}

// Why a connection ends other than by the process hanging up: a process that is still running
// is "not connected" from then on, so the log says why.
void LogEnd(const service::Peer& peer, const absl::Status& why) {
  std::fprintf(stderr, "protond: pid %u: control connection ended: %s\n", peer.pid,
               why.ToString().c_str());
}

// Takes one frame the process sent, if any: an answer to a command. False when the process hung
// up or broke the protocol.
bool TakeAnswer(int fd, const service::Peer& peer, service::ProtondService* service) {
  pollfd readable{fd, POLLIN, 0};
  if (poll(&readable, 1, 0) <= 0) return true;
  v1::CommandResult result;
  absl::StatusOr<bool> read = control::ReadFrame(fd, &result);
  if (!read.ok()) LogEnd(peer, read.status());
  if (!read.ok() || !*read) return false;
  if (absl::Status taken = service->Acknowledge(peer, result); !taken.ok()) {
    std::fprintf(stderr, "protond: pid %u: %s\n", peer.pid, std::string(taken.message()).c_str());
  }
  return true;
}

}  // namespace

void ServeControlConnection(int fd, const service::Peer& peer, service::ProtondService* service,
                            const std::atomic<bool>& stopping) {
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kReadTimeout, sizeof(kReadTimeout));
  v1::RegisterRequest request;
  absl::StatusOr<bool> read = control::ReadFrame(fd, &request);
  if (!read.ok() || !*read) {
    Refuse(fd, peer,
           read.ok() ? absl::InvalidArgumentError("no registration on the control connection")
                     : read.status());
    close(fd);
    return;
  }
  absl::StatusOr<uint64_t> process_id = service->RegisterProcess(peer, request);
  if (!process_id.ok()) {
    Refuse(fd, peer, process_id.status());
    close(fd);
    return;
  }
  v1::ControlCommand registered;
  registered.mutable_registered()->set_process_id(*process_id);
  bool open = control::WriteFrame(fd, registered).ok();
  while (open && !stopping.load()) {
    std::optional<v1::ControlCommand> command = service->NextCommand(*process_id, kCommandWait);
    if (command) {
      absl::Status written = control::WriteFrame(fd, *command);
      if (!written.ok()) LogEnd(peer, written);
      open = written.ok();
    }
    open = open && TakeAnswer(fd, peer, service);
  }
  service->ProcessDisconnected(*process_id);
  close(fd);
}

}  // namespace protond::server
