#include "daemon/query/trace_query.h"

#include "gtest/gtest.h"

namespace protond::query {
namespace {

store::StoredTrace ThreeScopesAndTwoKernels() {
  store::StoredTrace stored;
  stored.nodes = {{1, 1, 0, "step"}, {1, 2, 1, "add_one"}};
  for (uint64_t i = 0; i < 3; ++i) {
    stored.scope_events.push_back({1, 7, 0, 16 * (i + 1), 4242, 1, 100 * i, 100 * i + 50});
  }
  stored.gpu_events = {{1, 7, 2, 88, 2, 10, 20, 30, 0, 7, 5},
                       {1, 7, 2, 176, 2, 10, 40, 45, 1, 9, 6}};
  return stored;
}

TEST(TraceQueryTest, FirstChunkCarriesOffsetAndNodesThenEventsInOrder) {
  const std::vector<v1::Trace> chunks = BuildTraceChunks(ThreeScopesAndTwoKernels(), -5);
  ASSERT_EQ(chunks.size(), 1u);
  const v1::Trace& trace = chunks[0];
  EXPECT_EQ(trace.clock_offset_ns(), -5);
  EXPECT_EQ(trace.event_count(), 5u);
  ASSERT_EQ(trace.nodes_size(), 2);
  EXPECT_EQ(trace.nodes(1).name(), "add_one");
  EXPECT_EQ(trace.nodes(1).parent_id(), 1u);
  ASSERT_EQ(trace.scope_events_size(), 3);
  EXPECT_EQ(trace.scope_events(2).begin_ns(), 200u);
  EXPECT_EQ(trace.scope_events(2).end_ns(), 250u);
  EXPECT_EQ(trace.scope_events(2).tid(), 4242u);
  EXPECT_EQ(trace.scope_events(2).process_id(), 7u);
  ASSERT_EQ(trace.gpu_events_size(), 2);
  EXPECT_EQ(trace.gpu_events(1).kind(), v1::GpuEvent::KERNEL);
  EXPECT_EQ(trace.gpu_events(1).device_id(), 1u);
  EXPECT_EQ(trace.gpu_events(1).stream_id(), 9u);
  EXPECT_EQ(trace.gpu_events(1).correlation_id(), 6u);
  EXPECT_EQ(trace.gpu_events(1).node_id(), 2u);
}

TEST(TraceQueryTest, SplitsIntoChunksThatMergeBackToTheWhole) {
  const std::vector<v1::Trace> chunks = BuildTraceChunks(ThreeScopesAndTwoKernels(), 0, 2);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].nodes_size(), 2);
  EXPECT_EQ(chunks[0].scope_events_size(), 2);
  EXPECT_EQ(chunks[0].event_count(), 5u);
  EXPECT_EQ(chunks[1].nodes_size(), 0);
  EXPECT_EQ(chunks[1].event_count(), 0u);  // the first chunk says it for all
  EXPECT_EQ(chunks[1].scope_events_size(), 1);
  EXPECT_EQ(chunks[1].gpu_events_size(), 1);
  EXPECT_EQ(chunks[2].gpu_events_size(), 1);
  v1::Trace merged;
  for (const v1::Trace& chunk : chunks) merged.MergeFrom(chunk);
  EXPECT_EQ(merged.scope_events_size(), 3);
  EXPECT_EQ(merged.gpu_events_size(), 2);
  EXPECT_EQ(merged.gpu_events(1).correlation_id(), 6u);
}

// ThreeScopesAndTwoKernels with add_one (node 2) instrumented: "loop" (node 3) under it.
// Correlation 5 launched add_one at 20 ns, correlation 6 at 40 ns (CUPTI's clock); buffer
// (lane 2, 4096) is of launch 5, its intervals on the GPU's timer from 1205 ns; buffer 8192 of
// launch 6; buffer 9000 of a launch the trace lacks, buffer 9500 of a correlation that launched
// a kernel that is not its scopes' (node 1 is not a kernel: another kernel's launch in between).
store::StoredTrace InstrumentedTrace() {
  store::StoredTrace stored = ThreeScopesAndTwoKernels();
  stored.nodes.push_back({1, 3, 2, "loop"});
  stored.kernel_scope_events = {{1, 7, 2, 4096, 0, 3, 5, 0, 17, 5, 0, 1210, 1290, 160},
                                {1, 7, 2, 4096, 1, 3, 5, 0, 17, 5, 1, 1205, 1295, 180},
                                {1, 7, 2, 8192, 0, 3, 6, 1, 3, 0, 2, 2000, 2100, 200},
                                {1, 7, 2, 9000, 0, 3, 77, 1, 3, 0, 2, 3000, 3100, 200},
                                {1, 7, 3, 9500, 0, 1, 5, 1, 3, 0, 2, 3000, 3100, 200}};
  return stored;
}

TEST(TraceQueryTest, InKernelIntervalsStartWithTheirLaunchNumberedByBuffer) {
  const std::vector<v1::Trace> chunks = BuildTraceChunks(InstrumentedTrace(), 0, 4);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].event_count(), 8u);  // those it holds
  EXPECT_EQ(chunks[0].unplaced_kernel_scope_events(), 2u);
  v1::Trace merged;
  for (const v1::Trace& chunk : chunks) merged.MergeFrom(chunk);
  ASSERT_EQ(merged.kernel_scope_events_size(), 3);
  const v1::KernelScopeEvent& first = merged.kernel_scope_events(0);
  EXPECT_EQ(first.process_id(), 7u);
  EXPECT_EQ(first.node_id(), 3u);
  EXPECT_EQ(first.sm_id(), 17u);
  EXPECT_EQ(first.block_id(), 5u);
  EXPECT_EQ(first.start_ns(), 25u);  // 1210 on the GPU's timer: 5 ns after the buffer's earliest
  EXPECT_EQ(first.end_ns(), 105u);
  EXPECT_EQ(first.cycles(), 160u);
  EXPECT_EQ(first.buffer(), 1u);
  EXPECT_EQ(merged.kernel_scope_events(1).start_ns(), 20u);  // the earliest: the launch's start
  EXPECT_EQ(merged.kernel_scope_events(1).warp_id(), 1u);
  EXPECT_EQ(merged.kernel_scope_events(1).buffer(), 1u);
  const v1::KernelScopeEvent& second = merged.kernel_scope_events(2);
  EXPECT_EQ(second.device_id(), 1u);
  EXPECT_EQ(second.start_ns(), 40u);
  EXPECT_EQ(second.end_ns(), 140u);
  EXPECT_EQ(second.buffer(), 2u);
}

TEST(TraceQueryTest, NoEventsIsOneChunkWithTheNodes) {
  store::StoredTrace stored;
  stored.nodes = {{1, 1, 0, "step"}};
  const std::vector<v1::Trace> chunks = BuildTraceChunks(stored, 3);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].nodes_size(), 1);
  EXPECT_EQ(chunks[0].clock_offset_ns(), 3);
}

}  // namespace
}  // namespace protond::query
