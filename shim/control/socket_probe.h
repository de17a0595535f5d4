// Whether anything listens at a unix socket, found with one plain connect() and no gRPC: how the
// control library tells "no daemon at all" (fail at once, or start one) from "a daemon that is
// slow to answer" (wait for it, with a deadline).
#ifndef PROTOND_SHIM_CONTROL_SOCKET_PROBE_H_
#define PROTOND_SHIM_CONTROL_SOCKET_PROBE_H_

#include <string>

namespace protond::shim {

// connect()'s errno for one connection to the unix socket `socket_path`; 0 when something
// accepts it (or is too busy to: a slow daemon is still a daemon).
int ProbeSocket(const std::string& socket_path);

// True for the probe results that mean no daemon is there at all: no socket file, or a socket
// that nobody listens on (a daemon that died).
bool NoDaemonAt(int probe_errno);

}  // namespace protond::shim

#endif  // PROTOND_SHIM_CONTROL_SOCKET_PROBE_H_
