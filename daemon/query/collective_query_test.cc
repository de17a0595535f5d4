#include "daemon/query/collective_query.h"

#include "gtest/gtest.h"

namespace protond::query {
namespace {

TEST(CollectiveQueryTest, EachCallHasItsProcesssPidAndItsScopesPath) {
  store::StoredCollectives stored;
  stored.nodes = {{1, 1, 0, "train"}, {1, 2, 1, "step"}};
  stored.collective_events = {
      {1, 7, 0, 64, 2, 100, 200, 0xfeed, 3, 1024, 1, 2, "AllReduce", "ncclFloat32", "RING", "LL"},
      {1, 8, 0, 64, 0, 150, 250, 0xfeed, 3, 1024, 0, 2, "AllReduce", "ncclFloat32", "RING", "LL"},
      {1, 9, 0, 64, 1, 150, 250, 0xfeed, 4, 1024, 0, 2, "AllReduce", "ncclFloat32", "RING", "LL"}};
  v1::Session session;
  session.add_processes()->set_process_id(7);
  session.mutable_processes(0)->set_pid(4242);
  session.add_processes()->set_process_id(8);
  session.mutable_processes(1)->set_pid(4343);

  const v1::Collectives collectives = BuildCollectives(stored, session);

  ASSERT_EQ(collectives.events_size(), 3);
  const v1::CollectiveEvent& first = collectives.events(0);
  EXPECT_EQ(first.process_id(), 7u);
  EXPECT_EQ(first.pid(), 4242u);
  EXPECT_EQ(first.rank(), 1u);
  EXPECT_EQ(first.nranks(), 2u);
  EXPECT_EQ(first.comm_hash(), 0xfeedu);
  EXPECT_EQ(first.seq(), 3u);
  EXPECT_EQ(first.count(), 1024u);
  EXPECT_EQ(first.op(), "AllReduce");
  EXPECT_EQ(first.datatype(), "ncclFloat32");
  EXPECT_EQ(first.algorithm(), "RING");
  EXPECT_EQ(first.protocol(), "LL");
  EXPECT_EQ(first.start_ns(), 100u);
  EXPECT_EQ(first.end_ns(), 200u);
  EXPECT_EQ(first.scope_path(), "train/step");
  EXPECT_EQ(collectives.events(1).pid(), 4343u);
  EXPECT_EQ(collectives.events(1).scope_path(), "");  // called outside any scope
  EXPECT_EQ(collectives.events(2).pid(), 0u);         // a process the session does not list
  EXPECT_EQ(collectives.events(2).scope_path(), "train");
}

// A call gets the GPU times of the kernel its process launched with that correlation id; another
// process's kernel of the same id, or none, gives it no kernel.
TEST(CollectiveQueryTest, ACallGetsItsOwnProcesssKernelByCorrelationId) {
  store::StoredCollectives stored;
  stored.collective_events = {{1, 7, 0, 64, 0, 100, 200, 0xfeed, 3, 1024, 1, 2, "AllReduce",
                               "ncclFloat32", "RING", "LL", 21},
                              {1, 8, 0, 64, 0, 150, 250, 0xfeed, 3, 1024, 0, 2, "AllReduce",
                               "ncclFloat32", "RING", "LL", 22},
                              {1, 8, 0, 96, 0, 150, 250, 0xfeed, 4, 1024, 0, 2, "AllReduce",
                               "ncclFloat32", "RING", "LL", 0}};
  stored.collective_kernels = {{1, 7, 21, 1, 180, 900}, {1, 7, 22, 1, 1000, 1100}};

  const v1::Collectives collectives = BuildCollectives(stored, v1::Session());

  ASSERT_EQ(collectives.events_size(), 3);
  ASSERT_TRUE(collectives.events(0).has_kernel());
  EXPECT_EQ(collectives.events(0).kernel().device_id(), 1u);
  EXPECT_EQ(collectives.events(0).kernel().start_ns(), 180u);
  EXPECT_EQ(collectives.events(0).kernel().end_ns(), 900u);
  EXPECT_FALSE(collectives.events(1).has_kernel());  // 22 is process 7's, not 8's
  EXPECT_FALSE(collectives.events(2).has_kernel());
}

}  // namespace
}  // namespace protond::query
