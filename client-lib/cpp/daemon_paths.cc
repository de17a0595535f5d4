#include "client-lib/cpp/daemon_paths.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace protond::client {
namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? std::string(value) : fallback;
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
  const DaemonPaths defaults = DefaultDaemonPaths();
  return socket == defaults.socket ? defaults.state_dir : socket + ".state";
}

std::string ResolveSocketPath(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  return EnvOr("PROTOND_SOCKET", DefaultDaemonPaths().socket);
}

}  // namespace protond::client
