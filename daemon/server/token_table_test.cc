#include "daemon/server/token_table.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAlice[] = "alice-token-0123456789";
constexpr char kSlurm[] = "slurm-token-0123456789";

absl::Time At(const char* rfc3339) {
  absl::Time time;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error)) << error;
  return time;
}

TokenTable Table() {
  auto table = TokenTable::Parse(absl::StrCat("# who may reach protond over TCP\n", kAlice,
                                              " 1000 jobs=1234,1235 expires=2026-12-01T00:00:00Z\n",
                                              "\n", kSlurm, "\troot   # the scheduler\n"),
                                 "tokens");
  EXPECT_TRUE(table.ok()) << table.status();
  return *std::move(table);
}

TEST(TokenTableTest, ATokenStandsForItsUserAndJobsUntilItExpires) {
  const TokenTable table = Table();
  EXPECT_EQ(table.size(), 2u);
  auto alice = table.PeerFor(absl::StrCat("Bearer ", kAlice), At("2026-11-30T23:59:59Z"));
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->uid, 1000u);
  EXPECT_EQ(alice->pid, 0u);
  EXPECT_TRUE(alice->remote);
  EXPECT_THAT(alice->jobs, ElementsAre("1234", "1235"));

  auto expired = table.PeerFor(absl::StrCat("Bearer ", kAlice), At("2026-12-01T00:00:00Z"));
  EXPECT_EQ(expired.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(expired.status().message(), "this token expired at 2026-12-01T00:00:00+00:00");

  auto slurm = table.PeerFor(absl::StrCat("Bearer ", kSlurm), At("2030-01-01T00:00:00Z"));
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->uid, 0u);  // "root", looked up on this node
  EXPECT_TRUE(slurm->jobs.empty());
}

TEST(TokenTableTest, AGrantSaysWhenItsTokenExpires) {
  const TokenTable table = Table();
  auto alice = table.GrantFor(absl::StrCat("Bearer ", kAlice), At("2026-11-30T00:00:00Z"));
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->expires, At("2026-12-01T00:00:00Z"));
  EXPECT_EQ(alice->peer.uid, 1000u);
  auto slurm = table.GrantFor(absl::StrCat("Bearer ", kSlurm), At("2030-01-01T00:00:00Z"));
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->expires, absl::InfiniteFuture());
}

TEST(TokenTableTest, AMissingOrUnknownTokenIsRefusedWithoutEchoingIt) {
  const TokenTable table = Table();
  const absl::Time now = At("2026-11-01T00:00:00Z");
  for (const std::string header : {"", "Bearer ", "Basic abc", kAlice}) {
    auto peer = table.PeerFor(header, now);
    EXPECT_EQ(peer.status().code(), absl::StatusCode::kUnauthenticated) << header;
    EXPECT_THAT(peer.status().message(), HasSubstr("no token")) << header;
  }
  const std::string near_miss = absl::StrCat("Bearer ", kAlice, "x");
  auto peer = table.PeerFor(near_miss, now);
  EXPECT_EQ(peer.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(peer.status().message(), "this token is not accepted here");
}

TEST(TokenTableTest, BadLinesNameTheirLineAndNeverTheToken) {
  const struct {
    std::string text;
    std::string error;
  } cases[] = {
      {"short 1000\n", "tokens line 1: its token has 5 characters; 16 to 512 are needed"},
      {absl::StrCat("\n", kAlice, "\n"), "tokens line 2: it needs a token and a user"},
      {absl::StrCat(kAlice, " no-such-user-here\n"), "tokens line 1: no user 'no-such-user-here'"},
      {absl::StrCat(kAlice, " 1000 jobs=\n"), "tokens line 1: jobs= names no job"},
      {absl::StrCat(kAlice, " 1000 expires=tomorrow\n"),
       "tokens line 1: expires=tomorrow is not a time like 2026-12-31T00:00:00Z"},
      {absl::StrCat(kAlice, " 1000 admin=yes\n"),
       "tokens line 1: 'admin=yes' is neither jobs=... nor expires=..."},
      {absl::StrCat(kAlice, " 1000\n", kAlice, " 0\n"), "tokens line 2: its token is given twice"},
      {"# nothing but a comment\n", "tokens file tokens has no token"},
  };
  for (const auto& [text, error] : cases) {
    auto table = TokenTable::Parse(text, "tokens");
    EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(table.status().message(), HasSubstr(error)) << text;
    EXPECT_THAT(table.status().message(), Not(HasSubstr(kAlice))) << text;
  }
}

TEST(TokenTableTest, AFileOthersCanReadIsRefused) {
  char dir_pattern[] = "/tmp/token-table-test-XXXXXX";
  const std::string dir = mkdtemp(dir_pattern);
  const std::string path = dir + "/tokens";
  std::ofstream(path) << kAlice << " 1000\n";
  chmod(path.c_str(), 0644);
  auto open = TokenTable::Load(path);
  EXPECT_EQ(open.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(open.status().message(), HasSubstr("(mode 0644); chmod 600 " + path));
  chmod(path.c_str(), 0600);
  auto closed = TokenTable::Load(path);
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_EQ(closed->size(), 1u);
  EXPECT_EQ(TokenTable::Load(dir + "/none").status().code(), absl::StatusCode::kNotFound);
  unlink(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace protond::server
