#include "daemon/web/web_page.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::web {
namespace {

using ::testing::StartsWith;

server::TcpOptions Tcp(const std::string& listen, bool insecure) {
  server::TcpOptions tcp;
  tcp.listen = listen;
  tcp.insecure = insecure;
  if (!insecure) {
    tcp.tls_cert_path = "cert.pem";
    tcp.tls_key_path = "key.pem";
  }
  tcp.tokens_path = "tokens";
  return tcp;
}

WebPageOptions Web(const std::string& listen, const std::string& web_dir = "") {
  WebPageOptions web;
  web.listen = listen;
  web.web_dir = web_dir;
  return web;
}

std::string Refusal(const WebPageOptions& web, const server::TcpOptions& tcp) {
  return std::string(CheckWebPageOptions(web, tcp).message());
}

TEST(WebPageOptionsTest, BadCombinationsNameTheFlag) {
  EXPECT_TRUE(CheckWebPageOptions(Web(""), server::TcpOptions()).ok());
  EXPECT_TRUE(CheckWebPageOptions(Web("0.0.0.0:8443"), Tcp("0.0.0.0:7878", false)).ok());
  EXPECT_EQ(Refusal(Web("", "/srv/web"), Tcp("0.0.0.0:7878", false)),
            "--web-dir needs --web-listen");
  EXPECT_THAT(Refusal(Web("0.0.0.0:8443"), server::TcpOptions()),
              StartsWith("--web-listen needs --listen"));
  EXPECT_TRUE(CheckWebPageOptions(Web("127.0.0.1:0"), Tcp("127.0.0.1:7878", true)).ok());
  EXPECT_THAT(Refusal(Web("0.0.0.0:8080"), Tcp("127.0.0.1:7878", true)),
              StartsWith("--web-listen 0.0.0.0:8080 with --insecure must be a loopback address"));
}

}  // namespace
}  // namespace protond::web
