// ProtondService: starting, stopping and flushing sessions, and the commands pushed to their
// processes.
#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "common/text/session_name.h"
#include "daemon/registry/proc_stat.h"
#include "daemon/service/protond_service.h"

namespace protond::service {

absl::Status CheckNewSession(const std::string& name, v1::Session::Data data) {
  RETURN_IF_ERROR(text::CheckSessionName(name));
  if (data != v1::Session::DATA_UNSPECIFIED && !v1::Session::Data_IsValid(data)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown session data ", static_cast<int>(data), " (known: 1 tree, 2 trace)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Session> ProtondService::StartSession(const Peer& peer, const std::string& name,
                                                         v1::Session::Data data,
                                                         const std::string& mode_text) {
  if (peer.remote) {
    return absl::FailedPreconditionError(
        "StartSession profiles the calling process, and a remote caller has none on this node; "
        "profile running processes with protonctl start --pid or --job");
  }
  RETURN_IF_ERROR(CheckNewSession(name, data));
  ASSIGN_OR_RETURN(const mode::SessionMode mode, mode::ParseSessionMode(mode_text));
  absl::MutexLock lock(&mutex_);
  sessions::Session& session = sessions_.Add(peer.uid, name, data, mode);
  // A registered process that starts a session records into it (the in-process API).
  for (const auto& [process_id, process] : registry_.Snapshot()) {
    if (process->connected && process->row.pid == peer.pid && process->row.uid == peer.uid) {
      cycle_.Join(process_id, session);
    }
  }
  RETURN_IF_ERROR(CommitNewSessionLocked(session.row.session_id));
  return ToProto(session);
}

absl::Status ProtondService::CommitNewSessionLocked(uint64_t session_id) {
  absl::Status committed = RunIngestCycleLocked();
  if (committed.ok()) return committed;
  // No process records into it yet: it goes, as if never started, rather than stay listed as
  // running with no process until a commit works.
  const std::string name = sessions_.Find(session_id)->row.name;
  sessions_.Remove(session_id);
  cycle_.ForgetSession(session_id);
  sessions_.Publish(registry_.Snapshot(), published_);
  return absl::Status(committed.code(),
                      absl::StrCat("cannot start session '", name, "': ", committed.message()));
}

absl::StatusOr<v1::Session> ProtondService::StopSession(const Peer& peer, uint64_t session_id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(sessions::Session * session, OwnedSession(peer, session_id));
  RETURN_IF_ERROR(EndSession(*session, peer.pid));
  return ToProto(*session);
}

absl::Status ProtondService::EndSession(sessions::Session& session, uint32_t except_pid) {
  if (session.row.state != store::SessionState::kRunning) return absl::OkStatus();
  std::vector<uint64_t> live;
  for (const auto& [process_id, counters] : session.processes) {
    const std::shared_ptr<const registry::Process> process = registry_.Find(process_id);
    if (process == nullptr) continue;
    const store::ProcessRow& row = process->row;
    // One that has exited (its stream may not have ended yet) has nothing more to say.
    if (process->connected && row.pid != except_pid &&
        registry::ReadStartTicks(row.pid) == row.start_time_ticks) {
      live.push_back(process_id);
    }
  }
  if (!live.empty()) {
    // A process that does not answer in time ends its part anyway: its lanes are drained now.
    v1::ControlCommand stop;
    stop.mutable_stop_recording()->set_session_id(session.row.session_id);
    RETURN_IF_ERROR(PushAndWait(live, stop).status());
    if (session.row.state != store::SessionState::kRunning) return absl::OkStatus();
  }
  // One cycle: the session keeps its tree (what the ingest records into) through the drain, so
  // everything written so far counts, and its commit stores it stopped. A failed commit puts the
  // session back as the store holds it, running.
  session.row.state = store::SessionState::kStopped;
  session.row.end_time_unix_ns = sessions::NowUnixNs();
  session.changed = true;
  RETURN_IF_ERROR(RunIngestCycleLocked());
  session.tree.reset();
  cycle_.EndSession(session.row.session_id);
  // A window's summary comes with its stop, not a cycle later: listed stopped, it has one.
  if (session.row.always_on_window) SummarizeStoppedWindows();
  return absl::OkStatus();
}

absl::StatusOr<std::map<uint64_t, v1::CommandResult>> ProtondService::PushAndWait(
    const std::vector<uint64_t>& process_ids, const v1::ControlCommand& command) {
  ++commands_awaited_;
  absl::StatusOr<std::map<uint64_t, v1::CommandResult>> answers =
      PushAndAwaitAnswers(process_ids, command);
  --commands_awaited_;
  return answers;
}

absl::StatusOr<std::map<uint64_t, v1::CommandResult>> ProtondService::PushAndAwaitAnswers(
    const std::vector<uint64_t>& process_ids, const v1::ControlCommand& command) {
  const std::vector<registry::PushedCommand> pushed = registry_.PushAwaited(process_ids, command);
  const auto deadline = std::chrono::steady_clock::now() + answer_timeout_;
  for (auto now = std::chrono::steady_clock::now(); now < deadline;
       now = std::chrono::steady_clock::now()) {
    // The wait lets mutex_ go, as a condition variable would: the ingest thread and other calls
    // go on meanwhile, and the session being ended stays (the history's retention removes none
    // while commands_awaited_ counts this call).
    mutex_.Unlock();
    const bool all_answered = registry_.AwaitAnswers(
        pushed,
        std::min(kDrainWhileWaiting, std::chrono::ceil<std::chrono::milliseconds>(deadline - now)));
    mutex_.Lock();
    if (all_answered) break;
    // A process that stops first delivers its GPU work through its lanes, up to a CUPTI buffer
    // at once: drained now, it need not wait a whole commit interval for room.
    if (absl::Status drained = RunIngestCycleLocked(); !drained.ok()) {
      registry_.TakeAnswers(pushed);
      return drained;
    }
  }
  return registry_.TakeAnswers(pushed);
}

absl::StatusOr<v1::Session> ProtondService::FlushSession(const Peer& peer, uint64_t session_id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(sessions::Session * session, OwnedSession(peer, session_id));
  RETURN_IF_ERROR(RunIngestCycleLocked());
  return ToProto(*session);
}

absl::StatusOr<uint64_t> ProtondService::SessionOfProcess(const Peer& peer, uint32_t pid) {
  absl::MutexLock lock(&mutex_);
  const registry::Directory processes = registry_.Snapshot();
  std::vector<uint64_t> found;
  for (const auto& [session_id, session] : sessions_.all()) {
    if (!session.running() || !MayTouch(peer, session)) continue;
    for (const auto& [process_id, counters] : session.processes) {
      auto process = processes.find(process_id);
      if (process != processes.end() && process->second->row.pid == pid) {
        found.push_back(session_id);
      }
    }
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    return absl::NotFoundError(absl::StrCat("process ", pid, " records into no running session"));
  }
  return absl::FailedPreconditionError(absl::StrCat("process ", pid, " records into sessions ",
                                                    absl::StrJoin(found, ", "),
                                                    "; name one with --session"));
}

absl::Status ProtondService::EndFinishedAttachedSessions() {
  const int64_t now = sessions::NowUnixNs();
  const registry::Directory processes = registry_.Snapshot();
  std::vector<sessions::Session*> finished;
  for (auto& [session_id, session] : sessions_.all()) {
    if (!session.row.attached || !session.running()) continue;
    const bool time_up = session.row.stop_at_unix_ns != 0 && now >= session.row.stop_at_unix_ns;
    // A member not known since a daemon restart may still reconnect: it counts as alive. A
    // session that admits its job's new processes waits for them (the job's next step).
    const bool all_exited =
        !session.row.admits_new &&
        std::all_of(session.processes.begin(), session.processes.end(), [&](const auto& m) {
          auto process = processes.find(m.first);
          return process != processes.end() && process->second->row.exited;
        });
    if (time_up || all_exited) finished.push_back(&session);
  }
  for (sessions::Session* session : finished) RETURN_IF_ERROR(EndSession(*session, 0));
  return absl::OkStatus();
}

}  // namespace protond::service
