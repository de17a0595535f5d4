#include "daemon/sessions/session_table.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace protond::sessions {

int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// CLOCK_REALTIME - CLOCK_MONOTONIC: what moves a record's timestamp onto the epoch. The daemon's
// monotonic clock is the profiled processes' (one kernel clock), unless a process runs in a time
// namespace of its own. Read between two monotonic reads, to within their distance.
int64_t MonotonicToUnixOffsetNs() {
  auto ns = [](const timespec& ts) { return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec; };
  timespec before, real, after;
  clock_gettime(CLOCK_MONOTONIC, &before);
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &after);
  return ns(real) - (ns(before) + (ns(after) - ns(before)) / 2);
}

v1::Session ToProto(const Session& session, const registry::Directory& processes) {
  v1::Session out;
  out.set_id(session.row.session_id);
  out.set_name(session.row.name);
  out.set_state(session.row.state == store::SessionState::kRunning ? v1::Session::RUNNING
                                                                   : v1::Session::STOPPED);
  out.set_uid(session.row.uid);
  out.set_start_time_unix_ns(session.row.start_time_unix_ns);
  out.set_end_time_unix_ns(session.row.end_time_unix_ns);
  out.set_data(session.row.data == store::SessionData::kTrace ? v1::Session::TRACE
                                                              : v1::Session::TREE);
  out.set_stop_at_unix_ns(session.row.stop_at_unix_ns);
  out.set_job(session.row.job);
  out.set_admits_new(session.row.admits_new);
  out.set_mode(session.row.mode);
  out.set_always_on_window(session.row.always_on_window);
  out.set_period(static_cast<v1::Session::Period>(session.row.period));
  uint64_t records = 0;
  uint64_t dropped = 0;
  for (const auto& [process_id, counters] : session.processes) {
    v1::SessionProcess* p = out.add_processes();
    p->set_process_id(process_id);
    p->set_records(counters.records);
    p->set_dropped_records(counters.dropped_records);
    if (auto it = processes.find(process_id); it != processes.end()) {
      p->set_pid(it->second->row.pid);
      p->set_command(it->second->row.command);
      p->set_exited(it->second->row.exited);
      *p->mutable_job() = registry::JobToProto(*it->second);
    }
    records += counters.records;
    dropped += counters.dropped_records;
  }
  out.set_records(records);
  out.set_dropped_records(dropped);
  for (const std::string& problem : session.row.problems) out.add_problems(problem);
  if (const std::optional<store::WindowSummaryRow>& summary = session.row.window_summary) {
    *out.mutable_window_summary() = WindowSummaryToProto(*summary);
  }
  return out;
}

v1::WindowSummary WindowSummaryToProto(const store::WindowSummaryRow& summary) {
  v1::WindowSummary proto;
  proto.set_gpu_time_ns(summary.gpu_time_ns);
  proto.set_gpus_used(summary.gpus_used);
  proto.set_top_kernel(summary.top_kernel);
  proto.set_top_kernel_time_ns(summary.top_kernel_time_ns);
  proto.set_recorded_ns(summary.recorded_ns);
  const store::WindowVerdictRow& verdict = summary.verdict;
  if (verdict.collective_calls == 0) return proto;  // none recorded: no verdict
  v1::WindowVerdict* out = proto.mutable_verdict();
  out->set_collective_calls(verdict.collective_calls);
  out->set_judged_calls(verdict.judged_calls);
  out->set_late_rank(verdict.late_rank);
  out->set_late_pid(verdict.late_pid);
  out->set_late_mean_ns(verdict.late_mean_ns);
  out->set_others_wait_ns(verdict.others_wait_ns);
  out->set_others_wait_share(verdict.others_wait_share);
  return proto;
}

absl::Status SessionTable::Load(store::Store& store) {
  ASSIGN_OR_RETURN(next_session_id_, store.MaxSessionId());
  ++next_session_id_;
  ASSIGN_OR_RETURN(const std::vector<store::SessionRow> rows, store.ListSessions());
  for (const store::SessionRow& row : rows) {
    Session& session = sessions_[row.session_id];
    RETURN_IF_ERROR(ResetToStore(session, &row, store));
    for (const auto& [process_id, counters] : session.processes) {
      if (stored_processes_.contains(process_id)) continue;
      ASSIGN_OR_RETURN(const std::optional<store::ProcessRow> process,
                       store.GetProcess(process_id));
      if (!process.has_value()) continue;
      auto known = std::make_shared<registry::Process>();
      known->row = *process;
      stored_processes_.emplace(process_id, std::move(known));
    }
  }
  return absl::OkStatus();
}

Session& SessionTable::Add(uint32_t uid, const std::string& name, v1::Session::Data data,
                           const mode::SessionMode& mode) {
  const uint64_t id = next_session_id_++;
  Session& session = sessions_[id];
  session.row = {
      id, name.empty() ? "session" : name, uid, store::SessionState::kRunning, NowUnixNs(), 0, {}};
  if (data == v1::Session::TRACE) {
    session.row.data = store::SessionData::kTrace;
    session.row.clock_offset_ns = MonotonicToUnixOffsetNs();
  }
  session.row.mode = mode::SessionModeText(mode);
  session.mode = mode;
  session.tree = std::make_unique<aggregate::CallTree>(id);
  session.changed = true;
  return session;
}

void SessionTable::Remove(uint64_t session_id) {
  sessions_.erase(session_id);
  publish_all_ = true;
}

Session* SessionTable::Find(uint64_t session_id) {
  auto it = sessions_.find(session_id);
  return it != sessions_.end() ? &it->second : nullptr;
}

absl::Status SessionTable::ResetToStore(Session& session, const store::SessionRow* stored,
                                        store::Store& store) {
  // Members are kept (a process that joined since the last commit has no row yet), counters not.
  for (auto& [process_id, counters] : session.processes) counters = {};
  size_t stored_members = 0;
  if (stored != nullptr) {
    session.row = *stored;
    absl::StatusOr<mode::SessionMode> mode = mode::ParseSessionMode(stored->mode);
    if (!mode.ok()) {
      return absl::DataLossError(
          absl::StrCat("session ", stored->session_id,
                       " has a bad mode in the store: ", mode.status().message()));
    }
    session.mode = *mode;
    ASSIGN_OR_RETURN(auto members, store.ListSessionProcesses(stored->session_id));
    for (const store::SessionProcessRow& member : members) {
      session.processes[member.process_id] = {member.records, member.dropped_records};
    }
    stored_members = members.size();
  }
  session.scope_events.clear();
  session.gpu_events.clear();
  session.kernel_scope_events.clear();
  session.collective_events.clear();
  session.collective_kernels.clear();
  session.tree.reset();
  if (session.row.state == store::SessionState::kRunning) {
    session.tree = std::make_unique<aggregate::CallTree>(session.row.session_id);
    if (stored != nullptr) {
      ASSIGN_OR_RETURN(store::StoredTree tree, store.LoadTree(stored->session_id));
      session.tree->Load(tree);
    }
  }
  // What the store lacks (the session, or a member) is written by the next commit.
  session.changed = stored == nullptr || session.processes.size() > stored_members;
  return absl::OkStatus();
}

registry::Directory SessionTable::MembersOf(const Session& session,
                                            const registry::Directory& registered) const {
  registry::Directory members;
  for (const auto& [process_id, counters] : session.processes) {
    if (auto known = registered.find(process_id); known != registered.end()) {
      members.emplace(process_id, known->second);
    } else if (auto stored = stored_processes_.find(process_id);
               stored != stored_processes_.end()) {
      members.emplace(process_id, stored->second);
    }
  }
  return members;
}

void SessionTable::Publish(const registry::Directory& registered, PublishedSessions& published) {
  const std::shared_ptr<const PublishedList> before = published.Get();
  auto now = std::make_shared<PublishedList>();
  now->reserve(sessions_.size());
  auto old = before->begin();
  for (const auto& [session_id, session] : sessions_) {
    while (old != before->end() && (*old)->proto.id() < session_id) ++old;
    bool unchanged = !publish_all_ && old != before->end() && (*old)->proto.id() == session_id &&
                     session.row.state != store::SessionState::kRunning &&
                     !unpublished_sessions_.contains(session_id);
    for (auto member = session.processes.begin(); unchanged && member != session.processes.end();
         ++member) {
      unchanged = !unpublished_processes_.contains(member->first);
    }
    if (unchanged) {
      now->push_back(*old);
      continue;
    }
    auto described = std::make_shared<PublishedSession>();
    const registry::Directory processes = MembersOf(session, registered);
    described->proto = ToProto(session, processes);
    described->clock_offset_ns = session.row.clock_offset_ns;
    for (const auto& [process_id, counters] : session.processes) {
      auto process = processes.find(process_id);
      described->members_known = described->members_known && process != processes.end();
      if (process != processes.end()) {
        described->member_jobs.push_back(process->second->row.job.name());
      }
    }
    now->push_back(std::move(described));
  }
  unpublished_sessions_.clear();
  unpublished_processes_.clear();
  publish_all_ = false;
  published.Set(std::move(now));
}

std::shared_ptr<const PublishedList> PublishedSessions::Get() const {
  absl::MutexLock lock(&mutex_);
  return list_;
}

std::shared_ptr<const PublishedSession> PublishedSessions::Find(uint64_t session_id) const {
  const std::shared_ptr<const PublishedList> list = Get();
  auto it = std::lower_bound(list->begin(), list->end(), session_id,
                             [](const auto& entry, uint64_t id) { return entry->proto.id() < id; });
  if (it == list->end() || (*it)->proto.id() != session_id) return nullptr;
  return *it;
}

void PublishedSessions::Set(std::shared_ptr<const PublishedList> list) {
  absl::MutexLock lock(&mutex_);
  list_ = std::move(list);
}

}  // namespace protond::sessions
