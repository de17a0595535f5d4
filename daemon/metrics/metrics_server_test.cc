#include "daemon/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::metrics {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A client connection to the server on 127.0.0.1.
class Client {
 public:
  explicit Client(int port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  }
  ~Client() { close(fd_); }

  void Send(const std::string& bytes) {
    EXPECT_EQ(send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Everything until the server closes the connection.
  std::string ReadAll() {
    std::string out;
    char buffer[4096];
    ssize_t n;
    while ((n = recv(fd_, buffer, sizeof(buffer), 0)) > 0) out.append(buffer, n);
    return out;
  }

 private:
  int fd_;
};

class MetricsServerTest : public ::testing::Test {
 protected:
  void Start(MetricsServerOptions options = {}) {
    options.listen = "127.0.0.1:0";
    auto started = MetricsServer::Start(options, [this] {
      ++rendered_;
      return std::string("protond_up 1\n");
    });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    ASSERT_GT(server_->port(), 0);
  }

  std::string Exchange(const std::string& request) {
    Client client(server_->port());
    client.Send(request);
    return client.ReadAll();
  }

  std::atomic<int> rendered_{0};
  std::unique_ptr<MetricsServer> server_;
};

TEST_F(MetricsServerTest, GetMetricsIsAnsweredWithTheRenderedText) {
  Start();
  EXPECT_EQ(Exchange("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n"),
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 13\r\n"
            "Connection: close\r\n\r\n"
            "protond_up 1\n");
  // HTTP/1.0, bare line feeds and a query string are fine too.
  EXPECT_THAT(Exchange("GET /metrics?debug=1 HTTP/1.0\n\n"), EndsWith("\r\n\r\nprotond_up 1\n"));
  EXPECT_EQ(rendered_, 2);
}

TEST_F(MetricsServerTest, OtherPathsAndMethodsAreRefused) {
  Start();
  EXPECT_THAT(Exchange("GET / HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_THAT(Exchange("GET /metricsx HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 404 Not Found"));
  const std::string post = Exchange("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_THAT(post, StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_THAT(post, HasSubstr("\r\nAllow: GET\r\n"));
  EXPECT_THAT(Exchange("HEAD /metrics HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 405"));
  EXPECT_THAT(Exchange("GET /metrics\r\n\r\n"), StartsWith("HTTP/1.1 400 Bad Request\r\n"));
  EXPECT_THAT(Exchange("\x16\x03\x01 garbage\r\n\r\n"), StartsWith("HTTP/1.1 400"));
  EXPECT_EQ(rendered_, 0);
}

TEST_F(MetricsServerTest, AnOversizedRequestGets431) {
  MetricsServerOptions options;
  options.max_request_bytes = 1024;
  Start(options);
  const std::string answer =
      Exchange("GET /metrics HTTP/1.1\r\nX-Long: " + std::string(4000, 'a') + "\r\n\r\n");
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
  EXPECT_EQ(rendered_, 0);
}

TEST_F(MetricsServerTest, ASilentClientTimesOutAndTheNextOneIsAnswered) {
  MetricsServerOptions options;
  options.request_timeout = std::chrono::milliseconds(300);
  Start(options);
  const auto before = std::chrono::steady_clock::now();
  Client silent(server_->port());
  silent.Send("GET /metr");  // and nothing more
  Client next(server_->port());
  next.Send("GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_THAT(next.ReadAll(), EndsWith("protond_up 1\n"));
  EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(300));
  EXPECT_THAT(silent.ReadAll(), StartsWith("HTTP/1.1 408 Request Timeout\r\n"));
}

TEST_F(MetricsServerTest, ShutdownStopsListening) {
  Start();
  const int port = server_->port();
  server_->Shutdown();
  server_.reset();
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_NE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  close(fd);
}

absl::StatusOr<std::unique_ptr<MetricsServer>> StartAt(const std::string& listen) {
  MetricsServerOptions options;
  options.listen = listen;
  return MetricsServer::Start(options, [] { return std::string("x\n"); });
}

TEST(MetricsServerStartTest, BadAddressesAreNamed) {
  for (const char* bad : {"127.0.0.1", ":9464", "127.0.0.1:65536", "127.0.0.1:x", "[::1:9464"}) {
    auto started = StartAt(bad);
    ASSERT_FALSE(started.ok()) << bad;
    EXPECT_THAT(started.status().message(), HasSubstr(bad));
  }
  auto unknown = StartAt("no-such-host.invalid:9464");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("no-such-host.invalid is not known"));
  // Taken: a second server on the first one's port.
  auto first = StartAt("127.0.0.1:0");
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = StartAt(taken);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("cannot serve metrics at " + taken));
}

TEST(MetricsServerStartTest, ServesOnIpv6Loopback) {
  auto started = StartAt("[::1]:0");
  if (!started.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << started.status();
  EXPECT_GT((*started)->port(), 0);
}

}  // namespace
}  // namespace protond::metrics
