// Serves one control connection (common/control/control_channel.h): a process with the shim
// registers on it, takes the commands pushed to it, and answers them. The connection's end is how
// the daemon learns that the process exited (or will reconnect).
#ifndef PROTOND_DAEMON_SERVER_CONTROL_CONNECTION_H_
#define PROTOND_DAEMON_SERVER_CONTROL_CONNECTION_H_

#include <atomic>

#include "daemon/service/protond_service.h"

namespace protond::server {

// Runs until the peer hangs up, breaks the protocol, or `stopping` is set; closes `fd` (a
// blocking socket whose magic has been read). `peer` is the socket's SO_PEERCRED.
void ServeControlConnection(int fd, const service::Peer& peer, service::ProtondService* service,
                            const std::atomic<bool>& stopping);

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_CONTROL_CONNECTION_H_
