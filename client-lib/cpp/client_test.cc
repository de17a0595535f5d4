// Client against an in-process gRPC server on a unix socket that plays protond's Query service.
#include "client-lib/cpp/client.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace protond::client {
namespace {

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
                         "/absent.sock; start one with: protond --socket ", folder_,
                         "/absent.sock --state-dir DIR (or set PROTOND_SOCKET / --socket to the "
                         "daemon you use)"));
}

}  // namespace
}  // namespace protond::client
