#include "daemon/registry/proc_stat.h"

#include <cstdlib>
#include <sstream>
#include <string>

#include "common/files/read_file.h"

namespace protond::registry {

uint64_t ReadStartTicks(uint32_t pid) {
  // "" once the process is gone, also when it ends while being read.
  const std::string stat =
      files::ReadWholeFile("/proc/" + std::to_string(pid) + "/stat", "").value_or("");
  // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
  const size_t comm_end = stat.rfind(')');
  if (comm_end == std::string::npos || comm_end + 2 > stat.size()) return 0;
  std::istringstream fields(stat.substr(comm_end + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

uint32_t ReadPidInOwnNamespace(uint32_t pid) {
  std::istringstream in(
      files::ReadWholeFile("/proc/" + std::to_string(pid) + "/status", "").value_or(""));
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("NStgid:")) continue;
    const size_t last = line.find_last_of(" \t");
    return static_cast<uint32_t>(std::strtoul(line.c_str() + last + 1, nullptr, 10));
  }
  return 0;
}

}  // namespace protond::registry
