// For test workloads that write into their shim's region themselves, as a buggy, hostile or
// foreign writer could: the region found again among the process's descriptors, and a lane of
// their own in it.
#ifndef PROTOND_TESTS_INTEGRATION_OWN_REGION_H_
#define PROTOND_TESTS_INTEGRATION_OWN_REGION_H_

#include "shim/ring/ring_writer.h"

namespace protond::testing {

// The shim's region of this process (the memfd named protond-region), mapped once more; nullptr
// when there is none.
void* MapOwnRegion();

// Claims the region's last lane (the shim's threads take lanes from the first) for `tid`.
ring::LaneWriter ClaimLastLane(void* region, uint32_t tid);

// Appends `bytes` to `lane`, waiting up to a minute for the daemon to make room; false if it never
// did. For workloads that write more than a lane holds.
bool AppendWaiting(ring::LaneWriter& lane, const void* record, size_t bytes);

}  // namespace protond::testing

#endif  // PROTOND_TESTS_INTEGRATION_OWN_REGION_H_
