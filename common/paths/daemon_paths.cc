#include "common/paths/daemon_paths.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace protond::paths {
namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? std::string(value) : fallback;
}

// Up to 4 KiB of `path`; "" unless it is a regular file of this user's (a link is not followed).
std::string ReadOwnFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat file;
  char buffer[4096];
  ssize_t bytes = 0;
  if (fstat(fd, &file) == 0 && S_ISREG(file.st_mode) && file.st_uid == geteuid()) {
    bytes = pread(fd, buffer, sizeof(buffer), 0);
  }
  close(fd);
  return std::string(buffer, bytes > 0 ? static_cast<size_t>(bytes) : 0);
}

// The state directory that SocketLockRecord wrote into `socket`'s lock file, or "" when there is
// none to trust. Only this user's file counts: anyone who may write beside the socket could plant
// one, to have this user's daemon keep its store where they can read it.
std::string RecordedStateDir(const std::string& socket) {
  const std::string record_untrusted = ReadOwnFile(SocketLockPath(socket));
  const size_t space = record_untrusted.find(' ');
  const size_t end = record_untrusted.find('\n');
  if (space == std::string::npos || end == std::string::npos || end < space ||
      record_untrusted[space + 1] != '/') {
    return "";
  }
  return record_untrusted.substr(space + 1, end - space - 1);
}

std::string HomeDir() {
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') return home;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr) return pw->pw_dir;
  return "/tmp";
}

}  // namespace

DaemonPaths DefaultDaemonPaths() {
  if (geteuid() == 0) return {"/run/protond/protond.sock", "/var/lib/protond"};
  const std::string runtime =
      EnvOr("XDG_RUNTIME_DIR", "/tmp/protond-" + std::to_string(getuid()) + "-run");
  const std::string state = EnvOr("XDG_STATE_HOME", HomeDir() + "/.local/state");
  return {runtime + "/protond/protond.sock", state + "/protond"};
}

std::string StateDirForSocket(const std::string& socket) {
  if (std::string recorded = RecordedStateDir(socket); !recorded.empty()) return recorded;
  const DaemonPaths defaults = DefaultDaemonPaths();
  return socket == defaults.socket ? defaults.state_dir : socket + ".state";
}

std::string SocketLockPath(const std::string& socket) { return socket + ".lock"; }

std::string SocketLockRecord(pid_t pid, const std::string& absolute_state_dir) {
  return std::to_string(pid) + " " + absolute_state_dir + "\n";
}

std::string ResolveSocketPath(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  return EnvOr("PROTOND_SOCKET", DefaultDaemonPaths().socket);
}

}  // namespace protond::paths
