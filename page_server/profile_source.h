// What the page's API and protonctl's job reports read: protond's sessions, trees, collective
// calls, traces, always-on windows and clock, as one caller may see them. protonctl
// ui reads them through the user's client::Client (cli/client_profile_source.h); protond reads
// them in-process, as the signed-in token's user (daemon/web/service_profile_source.h). Either
// way the daemon's own checks decide what the caller sees. Called from civetweb's threads.
#ifndef PROTOND_PAGE_SERVER_PROFILE_SOURCE_H_
#define PROTOND_PAGE_SERVER_PROFILE_SOURCE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "protond.pb.h"

namespace protond::page_server {

class ProfileSource {
 public:
  virtual ~ProfileSource() = default;
  // The sessions the caller may see.
  virtual absl::StatusOr<v1::ListSessionsResponse> ListSessions() = 0;
  // The session's tree over all its processes, or (`rank` not "") those of that RANK only; with
  // `instructions`, each PC-sampled instruction under its source line. NOT_FOUND or
  // PERMISSION_DENIED for a session the caller may not see.
  virtual absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string& rank,
                                           bool instructions) = 0;
  // The session's NCCL collective calls (protond.proto's GetCollectives), to show under their
  // scopes in its tree; none from a protond older than GetCollectives.
  virtual absl::StatusOr<v1::Collectives> GetCollectives(uint64_t session_id) = 0;
  // The always-on windows the caller may see that `request` selects, oldest first, with their
  // summaries, and how many the caller may see in all.
  virtual absl::StatusOr<v1::ListHistoryResponse> ListHistory(
      const v1::ListHistoryRequest& request) = 0;
  // The windows ListHistory would list and their trees merged, in one call (GetRangeTree).
  virtual absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request) = 0;
  // A trace session's events, whole (GetTrace's chunks merged); FAILED_PRECONDITION for a
  // session started without --data trace, NOT_FOUND or PERMISSION_DENIED as GetTree.
  virtual absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id) = 0;
  // The daemon's CLOCK_MONOTONIC now, in ns, to relate several nodes' clocks (a job's report over
  // --hosts); UNIMPLEMENTED from a protond older than GetClock.
  virtual absl::StatusOr<int64_t> GetClock() = 0;

  // Session `session_id` of ListSessions(); NOT_FOUND, as protonctl says it, when it is not there.
  absl::StatusOr<v1::Session> GetSession(uint64_t session_id);
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_PROFILE_SOURCE_H_
