#include "daemon/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/net/listen_socket.h"

namespace protond::metrics {
namespace {

using Clock = std::chrono::steady_clock;

// Connections wait here while one is answered; Prometheus scrapes one at a time.
constexpr int kBacklog = 16;
// After an early answer (400, 431), what the client still sends is read and dropped for a moment,
// so that closing does not reset the connection before the client has read the answer.
constexpr std::chrono::milliseconds kDrainTime{100};

// Milliseconds left until `deadline`, for poll(); 0 once it has passed.
int MillisecondsUntil(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  pollfd p = {fd, events, 0};
  int ready;
  do {
    ready = poll(&p, 1, MillisecondsUntil(deadline));
  } while (ready < 0 && errno == EINTR);
  return ready == 1;
}

enum class Head { kComplete, kTooLarge, kTimedOut, kClosed };

// Reads until the blank line that ends the request head; `head_untrusted` holds what came.
Head ReadHead(int fd, Clock::time_point deadline, size_t max_bytes, std::string& head_untrusted) {
  char buffer[1024];
  while (true) {
    if (head_untrusted.find("\r\n\r\n") != std::string::npos ||
        head_untrusted.find("\n\n") != std::string::npos) {
      return Head::kComplete;
    }
    if (head_untrusted.size() >= max_bytes) return Head::kTooLarge;
    if (!WaitFor(fd, POLLIN, deadline)) return Head::kTimedOut;
    const ssize_t n =
        recv(fd, buffer, std::min(sizeof(buffer), max_bytes - head_untrusted.size()), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return Head::kClosed;
    if (n > 0) head_untrusted.append(buffer, static_cast<size_t>(n));
  }
}

bool WriteAll(int fd, absl::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    if (!WaitFor(fd, POLLOUT, deadline)) return false;
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EINTR && errno != EAGAIN) return false;
    if (n > 0) bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string Response(absl::string_view status, absl::string_view content_type,
                     absl::string_view body, absl::string_view extra_headers = "") {
  return absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Type: ", content_type,
                      "\r\nContent-Length: ", body.size(), "\r\n", extra_headers,
                      "Connection: close\r\n\r\n", body);
}

std::string ErrorResponse(absl::string_view status, absl::string_view extra_headers = "") {
  return Response(status, "text/plain; charset=utf-8", absl::StrCat(status, "\n"), extra_headers);
}

// The answer to a complete request head: its request line is "METHOD TARGET HTTP/1.x".
std::string AnswerTo(absl::string_view head_untrusted, const MetricsServer::Render& render) {
  absl::string_view line = head_untrusted.substr(0, head_untrusted.find('\n'));
  absl::ConsumeSuffix(&line, "\r");
  const size_t first_space = line.find(' ');
  const size_t last_space = line.rfind(' ');
  if (first_space == absl::string_view::npos || first_space == last_space ||
      !absl::StartsWith(line.substr(last_space + 1), "HTTP/1.")) {
    return ErrorResponse("400 Bad Request");
  }
  const absl::string_view method = line.substr(0, first_space);
  const absl::string_view target = line.substr(first_space + 1, last_space - first_space - 1);
  if (method != "GET") return ErrorResponse("405 Method Not Allowed", "Allow: GET\r\n");
  if (target.substr(0, target.find('?')) != "/metrics") return ErrorResponse("404 Not Found");
  return Response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render());
}

}  // namespace

MetricsServer::MetricsServer(const MetricsServerOptions& options, Render render, int listen_fd,
                             int wake_fd, int port)
    : options_(options),
      render_(std::move(render)),
      listen_fd_(listen_fd),
      wake_fd_(wake_fd),
      port_(port) {}

MetricsServer::~MetricsServer() {
  Shutdown();
  close(listen_fd_);
  close(wake_fd_);
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const MetricsServerOptions& options, Render render) {
  absl::StatusOr<int> listen_fd =
      net::ListenOn(options.listen, "--metrics-listen", "metrics", kBacklog);
  if (!listen_fd.ok()) return listen_fd.status();
  const int port = net::ListeningPort(*listen_fd);
  const int wake_fd = eventfd(0, EFD_CLOEXEC);
  if (wake_fd < 0) {
    close(*listen_fd);
    return absl::InternalError(absl::StrCat("eventfd for the metrics server: ", strerror(errno)));
  }
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(options, std::move(render), *listen_fd, wake_fd, port));
  server->thread_ = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

void MetricsServer::Shutdown() {
  if (!thread_.joinable()) return;
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
}

void MetricsServer::Serve() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    const int connection = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;  // the client gave up already, or out of descriptors for now
    Answer(connection);
    close(connection);
  }
}

void MetricsServer::Answer(int connection_fd) {
  const Clock::time_point deadline = Clock::now() + options_.request_timeout;
  std::string head_untrusted;
  std::string answer;
  switch (ReadHead(connection_fd, deadline, options_.max_request_bytes, head_untrusted)) {
    case Head::kComplete:
      answer = AnswerTo(head_untrusted, render_);
      break;
    case Head::kTooLarge:
      answer = ErrorResponse("431 Request Header Fields Too Large");
      break;
    case Head::kTimedOut:
      answer = ErrorResponse("408 Request Timeout");
      break;
    case Head::kClosed:
      return;
  }
  if (!WriteAll(connection_fd, answer, deadline)) return;
  shutdown(connection_fd, SHUT_WR);
  // Until the client closes its side (or kDrainTime): a close with unread bytes would send RST.
  const Clock::time_point drain_until = std::min(deadline, Clock::now() + kDrainTime);
  char discard[4096];
  while (Clock::now() < drain_until && WaitFor(connection_fd, POLLIN, drain_until) &&
         recv(connection_fd, discard, sizeof(discard), MSG_DONTWAIT) > 0) {
  }
}

}  // namespace protond::metrics
