// Builds the API's view of a session's call tree from the store: per-process contributions are
// merged (counts and sums added, min of minimums, max of maximums, summed metrics added,
// properties from the last process that set them) and nodes are put in pre-order. The devices of
// the session's processes come with it, as stored.
#ifndef PROTOND_DAEMON_QUERY_TREE_QUERY_H_
#define PROTOND_DAEMON_QUERY_TREE_QUERY_H_

#include <cstdint>
#include <vector>

#include "daemon/store/store.h"
#include "protond.pb.h"

namespace protond::query {

// With `instructions`, each PC-sampled SASS instruction node stays under its source line; without,
// it is folded into the line (its metrics added to the line's).
v1::Tree BuildTree(const store::StoredTree& stored, bool instructions);

// Leaves only what `process_ids` contributed (a rank's view of a job's session); the nodes stay.
void KeepProcesses(const std::vector<uint64_t>& process_ids, store::StoredTree& stored);

}  // namespace protond::query

#endif  // PROTOND_DAEMON_QUERY_TREE_QUERY_H_
