#include "common/net/listen_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace protond::net {
namespace {

// Splits HOST:PORT (HOST maybe in brackets) and checks the port.
absl::Status SplitListen(const std::string& listen, absl::string_view flag, std::string& host,
                         std::string& port) {
  const size_t colon = listen.rfind(':');
  int number = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &number) || number < 0 || number > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", listen, " is not HOST:PORT (such as 127.0.0.1:9464)"));
  }
  absl::string_view bare = absl::string_view(listen).substr(0, colon);
  if (absl::ConsumePrefix(&bare, "[") && !absl::ConsumeSuffix(&bare, "]")) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", listen, " has a '[' without its ']'"));
  }
  host = std::string(bare);
  port = std::to_string(number);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> ListenOn(const std::string& address, absl::string_view flag,
                             absl::string_view what, int backlog) {
  std::string host, port;
  if (absl::Status split = SplitListen(address, flag, host, port); !split.ok()) return split;
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", address, ": host ", host, " is not known: ", gai_strerror(error)));
  }
  int last_errno = 0;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    const int one = 1;
    if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
                    bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, backlog) != 0)) {
      last_errno = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve ", what, " at ", address, ": ", std::strerror(last_errno)));
  }
  return fd;
}

int ListeningPort(int fd) {
  sockaddr_storage bound = {};
  socklen_t length = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

}  // namespace protond::net
