// Client against an in-process gRPC server on a unix socket that plays protond's Query service.
#include "client-lib/cpp/client.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace protond::client {
namespace {

using ::testing::StartsWith;

// A unix socket bound at `path`, not yet listening; the test closes it.
int BindUnixSocket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0) << path;
  return fd;
}

// Answers every GetTree with ROOT and `nodes` children named with `name_bytes` characters each.
class FakeQuery : public v1::Query::Service {
 public:
  FakeQuery(int nodes, size_t name_bytes) : nodes_(nodes), name_bytes_(name_bytes) {}
  grpc::Status GetTree(grpc::ServerContext*, const v1::GetTreeRequest*,
                       v1::Tree* response) override {
    response->add_nodes()->set_name("ROOT");
    for (int i = 1; i <= nodes_; ++i) {
      v1::TreeNode* node = response->add_nodes();
      node->set_id(i);
      node->set_name(std::string(name_bytes_, 'a' + i % 26));
    }
    return grpc::Status::OK;
  }

 private:
  const int nodes_;
  const size_t name_bytes_;
};

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "client_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
    std::filesystem::remove_all(folder_);
  }
  std::string Serve(grpc::Service* service) {
    const std::string socket = folder_ + "/protond.sock";
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket, grpc::InsecureServerCredentials());
    builder.RegisterService(service);
    server_ = builder.BuildAndStart();
    return socket;
  }

  std::string folder_;
  std::unique_ptr<grpc::Server> server_;
};

// A profile of 80k frames answers with more than gRPC's default receive limit of 4 MB; protonctl
// said "Received message larger than max (4340525 vs. 4194304)" for one before the limit was
// lifted.
TEST_F(ClientTest, GetTreeTakesAnAnswerLargerThanFourMegabytes) {
  FakeQuery query(2000, 4096);
  Client client(Serve(&query));
  absl::StatusOr<v1::Tree> tree = client.GetTree(1);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_GT(tree->ByteSizeLong(), size_t{4} << 20);
  ASSERT_EQ(tree->nodes_size(), 2001);
  EXPECT_EQ(tree->nodes(2000).name(), std::string(4096, 'a' + 2000 % 26));
}

TEST_F(ClientTest, NoDaemonIsNamedWithHowToStartOne) {
  Client client(folder_ + "/absent.sock", std::chrono::milliseconds(500));
  EXPECT_EQ(client.GetTree(1).status().ToString(),
            absl::StrCat("UNAVAILABLE: no protond is listening at ", folder_,
                         "/absent.sock (No such file or directory); start one with: protond "
                         "--socket ",
                         folder_,
                         "/absent.sock --state-dir DIR (or set PROTOND_SOCKET / --socket to the "
                         "daemon you use)"));
}

// A socket file left by a daemon that died: nobody listens, and that is said at once.
TEST_F(ClientTest, AStaleSocketIsNamedAsNoDaemon) {
  const std::string socket = folder_ + "/stale.sock";
  const int fd = BindUnixSocket(socket);
  close(fd);
  Client client(socket);
  const auto began = std::chrono::steady_clock::now();
  EXPECT_THAT(std::string(client.ListSessions().status().message()),
              StartsWith("no protond is listening at " + socket + " (Connection refused); start"));
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(1));
}

// Something accepts connections and never answers (as a stopped daemon does: the kernel queues
// the connection): it is named, with its pid, as not answering; "start one" would be wrong.
TEST_F(ClientTest, ASocketThatAcceptsButNeverAnswersIsNamedWithItsPid) {
  const std::string socket = folder_ + "/silent.sock";
  const int fd = BindUnixSocket(socket);
  ASSERT_EQ(listen(fd, 16), 0);
  Client client(socket, std::chrono::milliseconds(500));
  EXPECT_EQ(client.ListSessions().status().ToString(),
            absl::StrCat("UNAVAILABLE: protond (pid ", getpid(), ") at ", socket,
                         " is not answering (stopped or overloaded)"));
  close(fd);
}

}  // namespace
}  // namespace protond::client
