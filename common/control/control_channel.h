// The control channel between the shim and protond: a plain connection to the daemon's unix
// socket, on which the process registers and then blocks in one read until the daemon pushes a
// command. gRPC is not used for it, so that an idle process runs no gRPC threads and wakes for
// nothing (gRPC's timer threads wake several times a second). The daemon tells a control
// connection from a gRPC one by its first bytes: kControlMagic, where gRPC sends HTTP/2's
// preface.
//
// After the magic, each side sends frames: a 4-byte little-endian length, then that many bytes of
// a serialized protobuf message (protond.proto). The process sends a RegisterRequest, then
// CommandResults; the daemon sends ControlCommands.
#ifndef PROTOND_COMMON_CONTROL_CONTROL_CHANNEL_H_
#define PROTOND_COMMON_CONTROL_CONTROL_CHANNEL_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message_lite.h"

namespace protond::control {

inline constexpr char kControlMagic[] = "PDCTRL01";  // 8 bytes; HTTP/2's preface is "PRI * HT..."
inline constexpr size_t kControlMagicBytes = 8;
inline constexpr size_t kMaxFrameBytes = 1 << 20;

// Connects to the daemon's socket and sends the magic. Blocking descriptor, close-on-exec.
absl::StatusOr<int> ConnectControl(const std::string& socket_path);

absl::Status WriteFrame(int fd, const google::protobuf::MessageLite& message);

// Reads one frame into `message`. False when the peer closed the connection between frames; an
// error for a cut or oversized frame, a read error, or bytes that do not parse.
absl::StatusOr<bool> ReadFrame(int fd, google::protobuf::MessageLite* message);

}  // namespace protond::control

#endif  // PROTOND_COMMON_CONTROL_CONTROL_CHANNEL_H_
