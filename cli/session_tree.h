// A session's tree as `protonctl tree` and `tree --job` show it: the daemon's tree with the
// session's NCCL collective calls under the scopes that made them (view/jobs/collective_tree.h).
#ifndef PROTOND_CLI_SESSION_TREE_H_
#define PROTOND_CLI_SESSION_TREE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"

namespace protond::cli {

// The session's collective calls; none from a protond that predates GetCollectives, whose
// sessions have none.
absl::StatusOr<v1::Collectives> ReadCollectives(client::Client& client, uint64_t session_id);

// `tree`, the session's over all its processes or (`rank` not "") those of that RANK, with the
// calls of the same processes under their scopes; each call's wait is known where the session
// holds every rank of its communicator.
absl::StatusOr<v1::Tree> WithCollectiveNodes(const v1::Session& session, const std::string& rank,
                                             v1::Tree tree, const v1::Collectives& collectives);

}  // namespace protond::cli

#endif  // PROTOND_CLI_SESSION_TREE_H_
