// Where a protond listens and keeps its store, by default and as overridden. protond, protonctl
// and the shim all resolve paths here, so they agree without configuration.
#ifndef PROTOND_COMMON_PATHS_DAEMON_PATHS_H_
#define PROTOND_COMMON_PATHS_DAEMON_PATHS_H_

#include <sys/types.h>

#include <string>

namespace protond::paths {

struct DaemonPaths {
  std::string socket;     // the unix socket file
  std::string state_dir;  // holds protond.db
};

// As root: /run/protond/protond.sock and /var/lib/protond. Otherwise
// $XDG_RUNTIME_DIR/protond/protond.sock (or /tmp/protond-UID/protond.sock without it) and
// $XDG_STATE_HOME/protond (or ~/.local/state/protond).
DaemonPaths DefaultDaemonPaths();

// The state directory of a daemon started for `socket` (the shim's autostart): the one the last
// daemon at `socket` recorded in its lock file, so that its sessions are found again; with none
// recorded (or a lock file that is not this user's), the default one for the default socket and
// `<socket>.state` beside any other, so that two daemons never share a store.
std::string StateDirForSocket(const std::string& socket);

// `<socket>.lock`: the file the daemon serving `socket` holds locked for its life, and records
// itself in (SocketLockRecord). It stays behind when the daemon ends.
std::string SocketLockPath(const std::string& socket);

// What the daemon of process `pid` writes into its socket's lock file: "<pid> <state_dir>\n", the
// state directory absolute.
std::string SocketLockRecord(pid_t pid, const std::string& absolute_state_dir);

// The socket a client uses: `flag_value` if set, else $PROTOND_SOCKET, else the default.
std::string ResolveSocketPath(const std::string& flag_value);

}  // namespace protond::paths

#endif  // PROTOND_COMMON_PATHS_DAEMON_PATHS_H_
