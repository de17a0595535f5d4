// Where a protond listens and keeps its store, by default and as overridden. protond, protonctl
// and the shim all resolve paths here, so they agree without configuration.
#ifndef PROTOND_CLIENT_LIB_CPP_DAEMON_PATHS_H_
#define PROTOND_CLIENT_LIB_CPP_DAEMON_PATHS_H_

#include <string>

namespace protond::client {

struct DaemonPaths {
  std::string socket;     // the unix socket file
  std::string state_dir;  // holds protond.db
};

// As root: /run/protond/protond.sock and /var/lib/protond. Otherwise
// $XDG_RUNTIME_DIR/protond/protond.sock (or /tmp/protond-UID/protond.sock without it) and
// $XDG_STATE_HOME/protond (or ~/.local/state/protond).
DaemonPaths DefaultDaemonPaths();

// The state directory of a daemon started for `socket` (the shim's autostart): the default one
// for the default socket; for any other, `<socket>.state` beside it, so that two daemons never
// share a store.
std::string StateDirForSocket(const std::string& socket);

// The socket a client uses: `flag_value` if set, else $PROTOND_SOCKET, else the default.
std::string ResolveSocketPath(const std::string& flag_value);

}  // namespace protond::client

#endif  // PROTOND_CLIENT_LIB_CPP_DAEMON_PATHS_H_
