// Starting a private protond when a program starts a session and none answers at its socket
// (PROTOND_AUTOSTART, on unless "0"). The daemon is the `protond` beside the control library, or
// beside protonctl's /proc/self/exe (a bundle's bin/, or the build's bin/), never one found
// relative to the working directory; started detached: in a session of its own, its store in
// paths::StateDirForSocket(socket) (the one the socket's last daemon kept, so that its sessions
// are still found), its output appended to protond.log there. It outlives the
// program, so that `protonctl sessions` and `protonctl tree` find the session later. Two
// processes autostarting at once end with one daemon: the daemon locks its socket
// (daemon/server/socket_lock.h), and the loser's starter waits for the winner.
//
// Called on the application thread that starts the session; posix_spawn, so that a
// multi-threaded program forks nothing but the new process.
#ifndef PROTOND_CLIENT_LIB_CONTROL_DAEMON_AUTOSTART_H_
#define PROTOND_CLIENT_LIB_CONTROL_DAEMON_AUTOSTART_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace protond::client {

// Whether PROTOND_AUTOSTART allows starting a daemon (anything but "0").
bool AutostartEnabled();

// Starts protond at `socket_path` and returns once it answers there, with what to tell the user:
// "started protond at S (its store and log: D)"; "" when another process's daemon answers there
// first. The error says why not (the binary that could not run, or the daemon's last words and
// where its log is). Waits at most about 7 s.
absl::StatusOr<std::string> StartDaemon(const std::string& socket_path);

// For a session start at `socket_path`: what StartDaemon says when it started a daemon there
// (`may_start` and PROTOND_AUTOSTART allowing), "" when something already accepts there (a slow
// daemon is still a daemon), else Unavailable saying that no protond is listening and why none
// was started.
absl::StatusOr<std::string> EnsureDaemon(const std::string& socket_path, bool may_start);

}  // namespace protond::client

#endif  // PROTOND_CLIENT_LIB_CONTROL_DAEMON_AUTOSTART_H_
