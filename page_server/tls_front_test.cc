#include "page_server/tls_front.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "page_server/http_server.h"
#include "view/testing/temp_dir_test.h"

namespace protond::page_server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// HttpServer with a certificate (made by openssl for the test): civetweb behind the TLS front.
class TlsFrontTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const std::string made =
        "/usr/bin/openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
        "-keyout " +
        dir_ + "/key.pem -out " + dir_ +
        "/cert.pem -days 2 -subj /CN=localhost "
        "2>/dev/null";
    ASSERT_EQ(std::system(made.c_str()), 0);
    HttpServerOptions options;
    options.tls_cert_path = dir_ + "/cert.pem";
    options.tls_key_path = dir_ + "/key.pem";
    auto server = HttpServer::Start(options, [](const Request& request) {
      return Response{
          200, "text/plain", "over TLS: " + request.path, {{"X-Peer", request.peer_address}}};
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    client_ = SSL_CTX_new(TLS_client_method());
  }
  void TearDown() override {
    server_.reset();
    SSL_CTX_free(client_);
    TempDirTest::TearDown();
  }

  // A TLS connection to the server from `from` (any 127.x.y.z is this machine's), its handshake
  // done (the certificate is not checked here).
  SSL* Connect(const char* from = "127.0.0.1") {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in source = {};
    source.sin_family = AF_INET;
    inet_pton(AF_INET, from, &source.sin_addr);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)), 0);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server_->port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    SSL* ssl = SSL_new(client_);
    SSL_set_fd(ssl, fd);
    EXPECT_EQ(SSL_connect(ssl), 1);
    return ssl;
  }
  static void Close(SSL* ssl) {
    const int fd = SSL_get_fd(ssl);
    SSL_free(ssl);
    close(fd);
  }
  // GET `path` on a connection of its own from `from`, with `headers` ("Name: value\r\n" each);
  // the whole answer.
  std::string Get(const std::string& path, const char* from = "127.0.0.1",
                  const std::string& headers = "") {
    SSL* ssl = Connect(from);
    const std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "Connection: close\r\n\r\n";
    EXPECT_EQ(SSL_write(ssl, request.data(), static_cast<int>(request.size())),
              static_cast<int>(request.size()));
    std::string answer;
    char buffer[4096];
    for (int got; (got = SSL_read(ssl, buffer, sizeof(buffer))) > 0;) answer.append(buffer, got);
    Close(ssl);
    return answer;
  }

  std::unique_ptr<HttpServer> server_;
  SSL_CTX* client_ = nullptr;
};

TEST_F(TlsFrontTest, ConnectionsOneAfterAnotherAreAnsweredPastTheLimit) {
  // More than kMaxConnections, one at a time: each ended connection's thread makes way.
  for (int i = 0; i < TlsFront::kMaxConnections + 10; ++i) {
    const std::string answer = Get("/n" + std::to_string(i));
    ASSERT_THAT(answer, ::testing::StartsWith("HTTP/1.1 200")) << i;
    ASSERT_THAT(answer, ::testing::EndsWith("over TLS: /n" + std::to_string(i))) << i;
  }
}

// The server learns each caller's own address from the front, whatever the request's headers
// say: behind the front civetweb sees only the front's loopback connections.
TEST_F(TlsFrontTest, TheServerSeesEachCallersAddressNotAForgedHeader) {
  EXPECT_THAT(Get("/a", "127.0.0.2"), HasSubstr("\r\nX-Peer: 127.0.0.2\r\n"));
  const std::string forged = Get("/b", "127.0.0.3",
                                 "X-Forwarded-For: 198.51.100.9\r\nX-Real-IP: 198.51.100.9\r\n"
                                 "Forwarded: for=198.51.100.9\r\n");
  EXPECT_THAT(forged, HasSubstr("\r\nX-Peer: 127.0.0.3\r\n"));
  EXPECT_THAT(forged, Not(HasSubstr("198.51.100.9")));
}

TEST_F(TlsFrontTest, StoppingEndsAnIdleConnectionAtOnce) {
  SSL* idle = Connect();  // says nothing: its relay waits in poll
  const auto start = std::chrono::steady_clock::now();
  server_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  Close(idle);
}

}  // namespace
}  // namespace protond::page_server
