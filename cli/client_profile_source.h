// protonctl's ProfileSource: the user's own client::Client, so the page (protonctl ui) and the
// job readers shared with protond's page (page_server/job_report.h, job_tree_table.h) see what
// protonctl shows that user. Thread-safe as Client is (its calls share one channel and keep no
// state).
#ifndef PROTOND_CLI_CLIENT_PROFILE_SOURCE_H_
#define PROTOND_CLI_CLIENT_PROFILE_SOURCE_H_

#include <memory>
#include <span>
#include <vector>

#include "cli/collective_calls.h"
#include "client-lib/cpp/client.h"
#include "page_server/job_node.h"
#include "page_server/profile_source.h"

namespace protond::cli {

class ClientProfileSource : public page_server::ProfileSource {
 public:
  // `client` must outlive this.
  explicit ClientProfileSource(client::Client& client) : client_(client) {}

  absl::StatusOr<v1::ListSessionsResponse> ListSessions() override {
    return client_.ListSessions();
  }
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string& rank,
                                   bool instructions) override {
    return client_.GetTree(session_id, rank, instructions);
  }
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t session_id) override {
    return ReadCollectives(client_, session_id);
  }
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(
      const v1::ListHistoryRequest& request) override {
    return client_.ListHistory(request);
  }
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request) override {
    return client_.GetRangeTree(request);
  }
  absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id) override {
    return client_.GetTrace(session_id);
  }
  absl::StatusOr<int64_t> GetClock() override { return client_.GetClock(); }

 private:
  client::Client& client_;
};

// Each client's daemon as a job's node: named by its endpoint (a socket's path, "node02:7878"),
// its host the endpoint's host or, for the local socket, this machine's name.
class ClientJobNodes {
 public:
  // The clients must outlive this.
  explicit ClientJobNodes(const std::vector<client::Client*>& clients);
  std::span<const page_server::JobNode> nodes() const { return nodes_; }

 private:
  std::vector<std::unique_ptr<ClientProfileSource>> sources_;
  std::vector<page_server::JobNode> nodes_;
};

}  // namespace protond::cli

#endif  // PROTOND_CLI_CLIENT_PROFILE_SOURCE_H_
