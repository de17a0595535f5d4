#include "daemon/server/token_file.h"

#include <sys/stat.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "view/testing/temp_dir_test.h"

namespace protond::server {
namespace {

using ::testing::HasSubstr;

constexpr char kAlice[] = "alice-token-0123456789";
constexpr char kBob[] = "bob-token-01234567890";
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

class TokenFileTest : public testing::TempDirTest {
 protected:
  void Write(const std::string& text, mode_t mode = 0600) {
    std::ofstream(path()) << text;
    chmod(path().c_str(), mode);
  }
  std::string path() const { return dir_ + "/tokens"; }
  static std::string Bearer(const char* token) { return absl::StrCat("Bearer ", token); }
};

TEST_F(TokenFileTest, AReloadTakesTokensAwayAndAddsThem) {
  Write(absl::StrCat(kAlice, " 1000\n"));
  absl::StatusOr<std::shared_ptr<TokenFile>> tokens = TokenFile::Load(path());
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_TRUE((*tokens)->PeerFor(Bearer(kAlice), kNow).ok());
  EXPECT_FALSE((*tokens)->PeerFor(Bearer(kBob), kNow).ok());

  Write(absl::StrCat(kBob, " 1001 jobs=77\n"));
  absl::StatusOr<size_t> reloaded = (*tokens)->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ(*reloaded, 1u);
  EXPECT_EQ((*tokens)->PeerFor(Bearer(kAlice), kNow).status().message(),
            "this token is not accepted here");
  absl::StatusOr<TokenTable::Grant> bob = (*tokens)->GrantFor(Bearer(kBob), kNow);
  ASSERT_TRUE(bob.ok()) << bob.status();
  EXPECT_EQ(bob->peer.uid, 1001u);
  EXPECT_THAT(bob->peer.jobs, ::testing::ElementsAre("77"));
}

TEST_F(TokenFileTest, AReloadThatFailsKeepsTheTableInUse) {
  Write(absl::StrCat(kAlice, " 1000\n"));
  absl::StatusOr<std::shared_ptr<TokenFile>> tokens = TokenFile::Load(path());
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  Write(absl::StrCat(kBob, " 1001 color=blue\n"));
  absl::StatusOr<size_t> bad_line = (*tokens)->Reload();
  EXPECT_EQ(bad_line.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_line.status().message(), HasSubstr("line 1"));
  Write(absl::StrCat(kBob, " 1001\n"), 0644);
  EXPECT_EQ((*tokens)->Reload().status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE((*tokens)->PeerFor(Bearer(kAlice), kNow).ok());
  EXPECT_FALSE((*tokens)->PeerFor(Bearer(kBob), kNow).ok());
}

}  // namespace
}  // namespace protond::server
