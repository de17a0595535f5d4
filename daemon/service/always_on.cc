// ProtondService: always-on profiling (protond --always-on, docs/always-on.md). At each ingest
// cycle the scheduler (daemon/always_on) says which windows are due; each opens as an attached
// session over its processes, as `protonctl start --pid ... --duration` would, marked as a window
// and owned by the processes' user. A session started by hand wins: a process in one gets no
// window (counted), and starting one ends the process's running window. After each cycle the
// history's retention deletes what the policy no longer keeps (always_on/history_retention.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "daemon/query/collective_query.h"
#include "daemon/query/tree_query.h"
#include "daemon/service/protond_service.h"
#include "view/history/window_summary.h"
#include "view/history/window_verdict.h"

namespace protond::service {
namespace {

// The window's processes with their pids as the store has them: the registry knows only those
// registered since protond started, and a window stored before may be summarized after a restart.
absl::StatusOr<v1::Session> ProcessesOfWindow(store::Store& store,
                                              const sessions::Session& window) {
  v1::Session members;
  for (const auto& [process_id, counters] : window.processes) {
    ASSIGN_OR_RETURN(const std::optional<store::ProcessRow> process, store.GetProcess(process_id));
    v1::SessionProcess* member = members.add_processes();
    member->set_process_id(process_id);
    if (process.has_value()) member->set_pid(process->pid);
  }
  return members;
}

// The window's verdict on its collective calls as committed, the calls GetCollectives answers;
// none (collective_calls 0) without a call.
absl::StatusOr<store::WindowVerdictRow> JudgeStoredWindow(store::Store& store,
                                                          const sessions::Session& window) {
  ASSIGN_OR_RETURN(const store::StoredCollectives stored,
                   store.LoadCollectives(window.row.session_id));
  ASSIGN_OR_RETURN(const v1::Session members, ProcessesOfWindow(store, window));
  const std::optional<v1::WindowVerdict> verdict = view::JudgeWindow(
      query::BuildCollectives(stored, members),
      static_cast<double>(window.row.end_time_unix_ns - window.row.start_time_unix_ns));
  if (!verdict.has_value()) return store::WindowVerdictRow{};
  return store::WindowVerdictRow{verdict->collective_calls(), verdict->judged_calls(),
                                 verdict->late_rank(),        verdict->late_pid(),
                                 verdict->late_mean_ns(),     verdict->others_wait_ns(),
                                 verdict->others_wait_share()};
}

// The window's summary from its tree as committed (the tree GetTree answers, instructions
// folded), with its verdict.
absl::StatusOr<store::WindowSummaryRow> SummarizeStoredWindow(store::Store& store,
                                                              const sessions::Session& window) {
  const uint64_t session_id = window.row.session_id;
  ASSIGN_OR_RETURN(const store::StoredTree stored, store.LoadTree(session_id));
  const absl::StatusOr<v1::WindowSummary> summary =
      view::SummarizeWindowTree(query::BuildTree(stored, /*instructions=*/false));
  if (!summary.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the tree of window ", session_id, ": ", summary.status().message()));
  }
  ASSIGN_OR_RETURN(const store::WindowVerdictRow verdict, JudgeStoredWindow(store, window));
  return store::WindowSummaryRow{session_id,
                                 summary->gpu_time_ns(),
                                 summary->gpus_used(),
                                 summary->top_kernel(),
                                 summary->top_kernel_time_ns(),
                                 verdict};
}

// A stopped window or period as retention decides from it.
always_on::StoppedWindow StoppedWindowOf(const sessions::Session& session) {
  always_on::StoppedWindow window;
  window.session_id = session.row.session_id;
  window.start_time_unix_ns = session.row.start_time_unix_ns;
  for (const auto& [process_id, counters] : session.processes) {
    window.records += counters.records;
    window.dropped_records += counters.dropped_records;
    window.process_ids.push_back(process_id);
  }
  window.name = session.row.name;
  window.uid = session.row.uid;
  window.job = session.row.job;
  window.period = session.row.period;
  return window;
}

}  // namespace

absl::Status ProtondService::OpenDueWindows() {
  if (windows_ == nullptr) return absl::OkStatus();
  using Busy = always_on::Candidate::Busy;
  std::map<uint64_t, Busy> busy;  // by process id
  for (const auto& [session_id, session] : sessions_.all()) {
    if (!session.running()) continue;
    for (const auto& [process_id, counters] : session.processes) {
      Busy& state = busy[process_id];
      if (!session.row.always_on_window) {
        state = Busy::kHandSession;
      } else if (state == Busy::kFree) {
        state = Busy::kWindowSession;
      }
    }
  }
  std::vector<always_on::Candidate> candidates;
  for (const auto& [process_id, process] : registry_.Snapshot()) {
    if (!process->connected || process->row.exited) continue;
    candidates.push_back({process_id, process->row.pid, process->row.uid, process->row.job.name(),
                          process->row.command, busy[process_id]});
  }
  const always_on::Plan plan = windows_->Tick(candidates, always_on::Clock::now());
  for (const always_on::Window& window : plan.open) RETURN_IF_ERROR(OpenWindow(window));
  return absl::OkStatus();
}

absl::Status ProtondService::OpenWindow(const always_on::Window& window) {
  v1::AttachRequest request;
  request.set_name(window.job.empty() ? absl::StrCat("window pid ", window.pids.front())
                                      : absl::StrCat("window job ", window.job));
  request.set_job(window.job);
  request.set_data(v1::Session::TREE);
  // It ends at the window's aligned end, whenever this tick came.
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(window.end - always_on::Clock::now());
  request.set_duration_ms(std::max<int64_t>(1, left.count()));
  Peer owner;  // the daemon itself, on behalf of the processes' user: the session is theirs
  owner.uid = window.uid;
  return AttachLocked(owner, window.pids, request, /*always_on_window=*/true).status();
}

absl::Status ProtondService::EndWindowsOf(const std::vector<uint32_t>& pids) {
  const registry::Directory processes = registry_.Snapshot();
  std::map<sessions::Session*, uint32_t> windows;  // a pid that ends each
  for (auto& [session_id, session] : sessions_.all()) {
    if (!session.running() || !session.row.always_on_window) continue;
    for (const auto& [process_id, counters] : session.processes) {
      auto process = processes.find(process_id);
      if (process != processes.end() &&
          std::binary_search(pids.begin(), pids.end(), process->second->row.pid)) {
        windows[&session] = process->second->row.pid;
      }
    }
  }
  for (const auto& [session, pid] : windows) {
    session->row.problems.push_back(
        absl::StrCat("window ended early: a session was started by hand on pid ", pid));
    RETURN_IF_ERROR(EndSession(*session, 0));
  }
  return absl::OkStatus();
}

void ProtondService::ApplyHistoryRetention() {
  // A caller of PushAndWait may hold any session while mutex_ is let go: none is removed then.
  if (retention_ == nullptr || commands_awaited_ > 0) return;
  std::vector<always_on::StoppedWindow> windows;
  for (const auto& [session_id, session] : sessions_.all()) {
    // Only committed, stopped windows and periods: never a session started by hand.
    if (!session.row.always_on_window || session.running() || session.changed) continue;
    windows.push_back(StoppedWindowOf(session));
  }
  always_on::HistoryRetention::Changes changes;
  const int64_t now_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  always_on::Clock::now().time_since_epoch())
                                  .count();
  absl::Status status = retention_->Step(
      cycle_.store(), windows, now_unix_ns, std::chrono::steady_clock::now() + kRetentionStepBudget,
      [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return sessions_.NewSessionId(); }, changes);
  for (uint64_t session_id : changes.deleted) {
    sessions_.Remove(session_id);
    cycle_.ForgetSession(session_id);
  }
  for (const store::SessionRow& period : changes.periods) {
    status.Update(sessions::SessionTable::ResetToStore(sessions_.all()[period.session_id], &period,
                                                       cycle_.store()));
    sessions_.NoteSessionChanged(period.session_id);
  }
  if (!changes.deleted.empty()) sessions_.Publish(registry_.Snapshot(), published_);
  const always_on::RetentionCounters& counters = retention_->counters();
  if (!cap_reached_ && counters.windows_deleted_for_cap > 0) {
    cap_reached_ = true;
    std::fprintf(stderr,
                 "protond: the always-on history reached --history-max (%llu bytes): its oldest "
                 "windows are deleted from now on (protond_history_windows_deleted_total counts "
                 "them)\n",
                 static_cast<unsigned long long>(retention_->policy().history_max_bytes));
  }
  const std::string error = status.ok() ? "" : status.ToString();
  if (!error.empty() && error != last_retention_error_) {
    std::fprintf(stderr, "protond: history retention failed: %s; it is tried again next cycle\n",
                 error.c_str());
  }
  last_retention_error_ = error;
}

void ProtondService::SummarizeStoppedWindows() {
  const auto deadline = std::chrono::steady_clock::now() + kRetentionStepBudget;
  bool summarized = false;
  std::string error;
  // By id: the oldest first.
  for (auto& [session_id, session] : sessions_.all()) {
    if (!session.row.always_on_window || session.running() || session.changed ||
        session.row.window_summary.has_value() || unsummarizable_.contains(session_id)) {
      continue;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    absl::StatusOr<store::WindowSummaryRow> summary =
        SummarizeStoredWindow(cycle_.store(), session);
    absl::Status status = summary.status();
    if (status.ok()) status = cycle_.store().PutWindowSummary(*summary);
    if (absl::IsInvalidArgument(status)) {
      unsummarizable_.insert(session_id);  // the tree will not change: once is enough
      std::fprintf(stderr, "protond: window %llu is listed without a summary: %s\n",
                   static_cast<unsigned long long>(session_id), status.ToString().c_str());
      continue;
    }
    if (!status.ok()) {  // the store's: tried again next cycle
      error = status.ToString();
      break;
    }
    session.row.window_summary = *std::move(summary);
    sessions_.NoteSessionChanged(session_id);
    summarized = true;
  }
  if (summarized) sessions_.Publish(registry_.Snapshot(), published_);
  if (!error.empty() && error != last_summary_error_) {
    std::fprintf(stderr, "protond: summarizing a window failed: %s; it is tried again next cycle\n",
                 error.c_str());
  }
  last_summary_error_ = error;
}

}  // namespace protond::service
