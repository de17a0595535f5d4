// What is at a unix socket, found with one plain connect() and no gRPC: how clients tell "no
// daemon at all" (fail at once, or start one) from "a daemon that is slow to answer" (wait for
// it), and name the daemon that does not answer. No gRPC, so the shim's control code may use it.
#ifndef PROTOND_CLIENT_LIB_CPP_SOCKET_PROBE_H_
#define PROTOND_CLIENT_LIB_CPP_SOCKET_PROBE_H_

#include <sys/types.h>

#include <string>

namespace protond::client {

struct SocketProbe {
  // connect()'s errno; 0 when something accepted the connection, or was too busy to (EAGAIN: its
  // backlog is full). A stopped daemon still accepts: the kernel queues the connection.
  int connect_errno = 0;
  // The process that listens there (SO_PEERCRED of the connection); 0 when not known.
  pid_t listener_pid = 0;

  // Something listens there (it accepted, or its backlog was full).
  bool Accepts() const { return connect_errno == 0; }
  // No socket file, or a socket that nobody listens on (a daemon that died).
  bool NoDaemon() const;
};

SocketProbe ProbeSocket(const std::string& socket_path);

// What to tell a user about `socket_path` when nothing answered there, by what `probe` found:
// "protond (pid N) at S is not answering (stopped or overloaded)" when something accepts there
// ("protond at S ..." when the pid is not known), "no protond is listening at S (No such file or
// directory)" when probe.NoDaemon(), else "protond at S cannot be reached (Permission denied)".
std::string DescribeSilentSocket(const std::string& socket_path, const SocketProbe& probe);

}  // namespace protond::client

#endif  // PROTOND_CLIENT_LIB_CPP_SOCKET_PROBE_H_
