#include "cli/collective_calls.h"

#include "absl/status/status.h"

namespace protond::cli {

absl::StatusOr<v1::Collectives> ReadCollectives(client::Client& client, uint64_t session_id) {
  absl::StatusOr<v1::Collectives> collectives = client.GetCollectives(session_id);
  if (absl::IsUnimplemented(collectives.status())) return v1::Collectives();
  return collectives;
}

}  // namespace protond::cli
