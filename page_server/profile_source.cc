#include "page_server/profile_source.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace protond::page_server {

absl::StatusOr<v1::Session> ProfileSource::GetSession(uint64_t session_id) {
  absl::StatusOr<v1::ListSessionsResponse> listed = ListSessions();
  if (!listed.ok()) return listed.status();
  for (const v1::Session& session : listed->sessions()) {
    if (session.id() == session_id) return session;
  }
  return absl::NotFoundError(
      absl::StrCat("session ", session_id, " does not exist (see protonctl sessions)"));
}

}  // namespace protond::page_server
