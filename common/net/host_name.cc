#include "common/net/host_name.h"

#include <unistd.h>

#include <climits>

namespace protond::net {

std::string LocalHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

}  // namespace protond::net
