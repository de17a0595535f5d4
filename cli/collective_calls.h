// The session's NCCL collective calls as `protonctl tree`, `tree --job` and the web page's tree
// read them, to show under their scopes (view/jobs/collective_tree.h).
#ifndef PROTOND_CLI_COLLECTIVE_CALLS_H_
#define PROTOND_CLI_COLLECTIVE_CALLS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"
#include "protond.pb.h"

namespace protond::cli {

// The session's collective calls; none from a protond that predates GetCollectives, whose
// sessions have none.
absl::StatusOr<v1::Collectives> ReadCollectives(client::Client& client, uint64_t session_id);

}  // namespace protond::cli

#endif  // PROTOND_CLI_COLLECTIVE_CALLS_H_
