// The NCCL profiler plugin's calls as protond stores them, for the tests of the job reports
// (view/jobs/job_report_test.cc, page_server/job_api_test.cc). Test-only.
#ifndef PROTOND_VIEW_JOBS_TESTING_PLUGIN_CALLS_H_
#define PROTOND_VIEW_JOBS_TESTING_PLUGIN_CALLS_H_

#include <cstdint>

#include "protond.pb.h"

namespace protond::view::testing {

// Call `call` of an AllReduce of 1M f32 (RING, SIMPLE) on communicator 0xc0ffee by rank `rank` of
// 2 (process rank + 1, pid 4000 + rank), from `start_ns` to `end_ns`.
inline v1::CollectiveEvent* AddAllReduceCall(v1::Collectives& calls, uint32_t rank, int call,
                                             int64_t start_ns, int64_t end_ns) {
  v1::CollectiveEvent* event = calls.add_events();
  event->set_process_id(rank + 1);
  event->set_pid(4000 + rank);
  event->set_rank(rank);
  event->set_nranks(2);
  event->set_comm_hash(0xc0ffee);
  event->set_seq(call);
  event->set_count(1'000'000);
  event->set_op("AllReduce");
  event->set_datatype("ncclFloat32");
  event->set_algorithm("RING");
  event->set_protocol("SIMPLE");
  event->set_start_ns(start_ns);
  event->set_end_ns(end_ns);
  return event;
}

}  // namespace protond::view::testing

#endif  // PROTOND_VIEW_JOBS_TESTING_PLUGIN_CALLS_H_
