// protonctl ui's ProfileSource: the user's own client::Client, so the page sees what protonctl
// shows that user. Thread-safe as Client is (its calls share one channel and keep no state).
#ifndef PROTOND_CLI_UI_CLIENT_PROFILE_SOURCE_H_
#define PROTOND_CLI_UI_CLIENT_PROFILE_SOURCE_H_

#include "cli/collective_calls.h"
#include "client-lib/cpp/client.h"
#include "page_server/profile_source.h"

namespace protond::cli::ui {

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

 private:
  client::Client& client_;
};

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_CLIENT_PROFILE_SOURCE_H_
