#include "cli/remote_endpoint.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

using ::testing::HasSubstr;

class RemoteEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "remote_endpoint_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }

  std::string dir_;
};

TEST_F(RemoteEndpointTest, WithoutAHostItIsTheSocket) {
  auto endpoint = ResolveEndpoint({}, "/run/protond/protond.sock");
  ASSERT_TRUE(endpoint.ok()) << endpoint.status();
  EXPECT_EQ(endpoint->socket_path, "/run/protond/protond.sock");
  EXPECT_TRUE(endpoint->host.empty());
  RemoteFlags stray;
  stray.insecure = true;
  EXPECT_THAT(ResolveEndpoint(stray, "s").status().message(), HasSubstr("go with --host"));
}

TEST_F(RemoteEndpointTest, AHostTakesTheTokenOnTheFirstLineAndTheCertificates) {
  RemoteFlags flags;
  flags.host = "node01:7878";
  flags.token_file = Write("token", "  alice-token-0123456789 \nsecond line\n", 0600);
  flags.tls_ca = Write("ca.pem", "-----BEGIN CERTIFICATE-----\nMII\n", 0644);
  auto endpoint = ResolveEndpoint(flags, "unused");
  ASSERT_TRUE(endpoint.ok()) << endpoint.status();
  EXPECT_EQ(endpoint->host, "node01:7878");
  EXPECT_EQ(endpoint->token, "alice-token-0123456789");
  EXPECT_EQ(endpoint->tls_ca_pem, "-----BEGIN CERTIFICATE-----\nMII\n");
  EXPECT_FALSE(endpoint->insecure);
  EXPECT_EQ(endpoint->Name(), "node01:7878");
}

TEST_F(RemoteEndpointTest, EachMistakeNamesItsFlag) {
  const std::string token = Write("token", "alice-token-0123456789\n", 0600);
  const struct {
    RemoteFlags flags;
    std::string error;
  } cases[] = {
      {{"node01", token, "", false}, "--host node01 needs a port"},
      {{"node01:7878", "", "", false}, "--host needs --token-file FILE"},
      {{"node01:7878", Write("open", "t0123456789abcdef\n", 0644), "", false},
       "may be read or written by others (mode 0644); chmod 600"},
      {{"node01:7878", Write("empty", "\n", 0600), "", false}, "has no token on its first line"},
      {{"node01:7878", dir_ + "/none", "", false}, "--token-file " + dir_ + "/none"},
      {{"node01:7878", token, Write("ca", "not a certificate", 0644), false},
       "holds no PEM certificate"},
      {{"node01:7878", token, Write("ca2", "-----BEGIN CERTIFICATE-----", 0644), true},
       "--insecure and --tls-ca: choose one"},
  };
  for (const auto& [flags, error] : cases) {
    EXPECT_THAT(ResolveEndpoint(flags, "s").status().message(), HasSubstr(error)) << error;
  }
}

}  // namespace
}  // namespace protond::cli
