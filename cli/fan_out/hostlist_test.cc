#include "cli/fan_out/hostlist.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(HostlistTest, RangesListsAndPaddingAsSlurmWritesThem) {
  EXPECT_THAT(
      *ExpandHostlist("node[01-04,07]:7878"),
      ElementsAre("node01:7878", "node02:7878", "node03:7878", "node04:7878", "node07:7878"));
  EXPECT_THAT(*ExpandHostlist("a1:7878,b[8-10]:1"),
              ElementsAre("a1:7878", "b8:1", "b9:1", "b10:1"));
  EXPECT_THAT(*ExpandHostlist("rack[1-2]-gpu[1-2]"),
              ElementsAre("rack1-gpu1", "rack1-gpu2", "rack2-gpu1", "rack2-gpu2"));
  EXPECT_THAT(*ExpandHostlist("127.0.0.1:[7001,7002]"),
              ElementsAre("127.0.0.1:7001", "127.0.0.1:7002"));
  EXPECT_THAT(*ExpandHostlist("n1,n1,n[1-2]"), ElementsAre("n1", "n2"));  // each once
}

TEST(HostlistTest, MistakesAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"node[01-04", "a '[' without its ']'"},
      {"node01]", "a ']' without its '['"},
      {"node[1-[2]]", "brackets inside brackets"},
      {"node1,,node2", "an empty host name"},
      {"node[4-1]", "'[4-1]' is not a list of numbers and ranges such as [01-04,07]"},
      {"node[a-b]", "is not a list of numbers"},
      {"node[1-100000]", "more hosts than protonctl takes"},
      {"", "an empty host name"},
  };
  for (const auto& [hostlist, error] : cases) {
    auto hosts = ExpandHostlist(hostlist);
    EXPECT_FALSE(hosts.ok()) << hostlist;
    EXPECT_THAT(hosts.status().message(), HasSubstr(error)) << hostlist;
  }
}

}  // namespace
}  // namespace protond::cli
