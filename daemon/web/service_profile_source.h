// protond's own ProfileSource for its page: the service's queries, in-process, as one signed-in
// caller. The service authorizes each call (MayTouch), as it does a call over TCP with the same
// token: the page sees what `protonctl --host` with that token sees.
#ifndef PROTOND_DAEMON_WEB_SERVICE_PROFILE_SOURCE_H_
#define PROTOND_DAEMON_WEB_SERVICE_PROFILE_SOURCE_H_

#include <utility>
#include <vector>

#include "common/clock/tsc_clock.h"
#include "daemon/service/protond_service.h"
#include "page_server/profile_source.h"

namespace protond::web {

class ServiceProfileSource : public page_server::ProfileSource {
 public:
  // `service` must outlive this.
  ServiceProfileSource(service::ProtondService& service, service::Peer peer)
      : service_(service), peer_(std::move(peer)) {}

  absl::StatusOr<v1::ListSessionsResponse> ListSessions() override {
    return service_.ListSessions(peer_);
  }
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string& rank,
                                   bool instructions) override {
    return service_.GetTree(peer_, session_id, rank, instructions);
  }
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t session_id) override {
    return service_.GetCollectives(peer_, session_id);
  }
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(
      const v1::ListHistoryRequest& request) override {
    return service_.ListHistory(peer_, request);
  }
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request) override {
    return service_.GetRangeTree(peer_, request);
  }
  absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id) override {
    absl::StatusOr<std::vector<v1::Trace>> chunks = service_.GetTrace(peer_, session_id);
    if (!chunks.ok()) return chunks.status();
    v1::Trace trace;  // merged as a client merges the stream's chunks
    for (const v1::Trace& chunk : *chunks) trace.MergeFrom(chunk);
    return trace;
  }
  // Read here, as QueryService::GetClock does, not behind the service's mutex.
  absl::StatusOr<int64_t> GetClock() override { return static_cast<int64_t>(clock::MonotonicNs()); }

 private:
  service::ProtondService& service_;
  const service::Peer peer_;
};

}  // namespace protond::web

#endif  // PROTOND_DAEMON_WEB_SERVICE_PROFILE_SOURCE_H_
