#include "cli/session_tree.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "view/jobs/collective_tree.h"

namespace protond::cli {

absl::StatusOr<v1::Collectives> ReadCollectives(client::Client& client, uint64_t session_id) {
  absl::StatusOr<v1::Collectives> collectives = client.GetCollectives(session_id);
  if (absl::IsUnimplemented(collectives.status())) return v1::Collectives();
  return collectives;
}

absl::StatusOr<v1::Tree> WithCollectiveNodes(const v1::Session& session, const std::string& rank,
                                             v1::Tree tree, const v1::Collectives& collectives) {
  std::optional<std::set<int64_t>> pids;
  if (!rank.empty()) {
    pids.emplace();
    for (const v1::SessionProcess& process : session.processes()) {
      if (process.job().rank() == rank) pids->insert(process.pid());
    }
  }
  return view::AddCollectiveNodes(std::move(tree), collectives, pids);
}

}  // namespace protond::cli
