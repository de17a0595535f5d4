// ProtondService: who may see and act on which process and session.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "daemon/service/protond_service.h"

namespace protond::service {
namespace {

// Why `peer` may not touch session `session_id` of user `uid`, whether it exists (`found`) and
// whether its processes are all of the peer's jobs (`in_jobs`); OK when it may.
absl::Status SessionAccess(const Peer& peer, uint64_t session_id, bool found, uint32_t uid,
                           bool in_jobs) {
  if (!found) return absl::NotFoundError(absl::StrCat("session ", session_id, " does not exist"));
  if (peer.uid != 0 && uid != peer.uid) {
    return absl::PermissionDeniedError(
        absl::StrCat("session ", session_id, " belongs to another user"));
  }
  if (!in_jobs) {
    return absl::PermissionDeniedError(absl::StrCat(
        "session ", session_id, " has processes outside the jobs this token may touch (",
        absl::StrJoin(peer.jobs, ", "), ")"));
  }
  return absl::OkStatus();
}

bool InJobs(const Peer& peer, const std::string& job) {
  return peer.jobs.empty() || std::find(peer.jobs.begin(), peer.jobs.end(), job) != peer.jobs.end();
}

}  // namespace

absl::StatusOr<sessions::Session*> ProtondService::OwnedSession(const Peer& peer,
                                                                uint64_t session_id) {
  sessions::Session* session = sessions_.Find(session_id);
  RETURN_IF_ERROR(SessionAccess(peer, session_id, session != nullptr,
                                session != nullptr ? session->row.uid : 0,
                                session != nullptr && MayTouch(peer, *session)));
  return session;
}

absl::StatusOr<std::shared_ptr<const sessions::PublishedSession>>
ProtondService::PublishedSessionOf(const Peer& peer, uint64_t session_id) {
  std::shared_ptr<const sessions::PublishedSession> session = published_.Find(session_id);
  RETURN_IF_ERROR(SessionAccess(peer, session_id, session != nullptr,
                                session != nullptr ? session->proto.uid() : 0,
                                session != nullptr && MayTouch(peer, *session)));
  return session;
}

bool ProtondService::MayTouch(const Peer& peer, const sessions::PublishedSession& session) {
  if (peer.uid != 0 && session.proto.uid() != peer.uid) return false;
  if (peer.jobs.empty()) return true;
  if (session.member_jobs.empty() && session.members_known) {
    return !session.proto.job().empty() && InJobs(peer, session.proto.job());
  }
  return session.members_known &&
         std::all_of(session.member_jobs.begin(), session.member_jobs.end(),
                     [&](const std::string& job) { return InJobs(peer, job); });
}

bool ProtondService::MayTouch(const Peer& peer, const registry::Process& process) {
  return (peer.uid == 0 || process.row.uid == peer.uid) && InJobs(peer, process.row.job.name());
}

bool ProtondService::MayTouch(const Peer& peer, const sessions::Session& session) const {
  if (peer.uid != 0 && session.row.uid != peer.uid) return false;
  if (peer.jobs.empty()) return true;
  // A job-limited token sees a session only if it knows every process in it to be of its jobs;
  // one with no process yet, if it was started for one of them.
  if (session.processes.empty()) return !session.row.job.empty() && InJobs(peer, session.row.job);
  return std::all_of(session.processes.begin(), session.processes.end(), [&](const auto& member) {
    const std::shared_ptr<const registry::Process> process = registry_.Find(member.first);
    return process != nullptr && InJobs(peer, process->row.job.name());
  });
}

v1::Session ProtondService::ToProto(const sessions::Session& session) const {
  return sessions::ToProto(session, registry_.Snapshot());
}

}  // namespace protond::service
