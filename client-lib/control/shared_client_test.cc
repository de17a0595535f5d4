// The control library's calls share one client (one gRPC channel) per registration.
#include "client-lib/control/shared_client.h"

#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace protond::client {
namespace {

constexpr std::chrono::seconds kDeadline{30};

TEST(SharedClientTest, CallsOfOneRegistrationShareOneClient) {
  SharedClient shared("/nonexistent/protond.sock", kDeadline);
  const std::shared_ptr<Client> first = shared.Get(1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(shared.Get(1), first);
  EXPECT_EQ(shared.Get(1), first);
}

TEST(SharedClientTest, ARegistrationAgainGetsANewClient) {
  SharedClient shared("/nonexistent/protond.sock", kDeadline);
  const std::shared_ptr<Client> before = shared.Get(1);
  const std::shared_ptr<Client> after = shared.Get(2);
  EXPECT_NE(after, before);
  EXPECT_EQ(shared.Get(2), after);
}

TEST(SharedClientTest, AForgottenClientIsReplacedAndAnOlderOneForgottenChangesNothing) {
  SharedClient shared("/nonexistent/protond.sock", kDeadline);
  const std::shared_ptr<Client> failed = shared.Get(1);
  shared.Forget(failed);
  const std::shared_ptr<Client> replacement = shared.Get(1);
  EXPECT_NE(replacement, failed);
  shared.Forget(failed);  // a second caller of the failed client says so too, later
  EXPECT_EQ(shared.Get(1), replacement);
}

TEST(SharedClientTest, ThreadsCallingAtOnceShareOneClient) {
  SharedClient shared("/nonexistent/protond.sock", kDeadline);
  std::vector<std::shared_ptr<Client>> got(8);
  std::vector<std::thread> threads;
  for (auto& client : got) threads.emplace_back([&shared, &client] { client = shared.Get(1); });
  for (std::thread& thread : threads) thread.join();
  for (const auto& client : got) EXPECT_EQ(client, got.front());
}

TEST(SharedClientTest, CloseLetsTheKeptClientGoAndLaterCallsKeepNone) {
  SharedClient shared("/nonexistent/protond.sock", kDeadline);
  std::weak_ptr<Client> kept = shared.Get(1);
  shared.Close();
  EXPECT_TRUE(kept.expired());  // no channel left for exit to trip over
  const std::shared_ptr<Client> after = shared.Get(1);
  ASSERT_NE(after, nullptr);
  EXPECT_NE(shared.Get(1), after);
}

}  // namespace
}  // namespace protond::client
