// ProtondService: the ingest cycle. Drains every attached lane into the sessions' call trees,
// commits aggregates together with the lanes' positions and decoder state, and only then hands
// the space back to the writers.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "daemon/service/internal/proc_stat.h"
#include "daemon/service/protond_service.h"

namespace protond::service {

absl::Status ProtondService::RunIngestCycleLocked() {
  // Decide which processes are gone before draining: whatever they wrote is in this drain.
  std::vector<ProcessEntry*> gone;
  for (auto& [id, process] : processes_) {
    if (!process.region) continue;
    if (!process.connected && ReadStartTicks(process.row.pid) != process.row.start_time_ticks) {
      gone.push_back(&process);
    }
    DrainProcess(process);
  }
  store::Batch batch = CollectChanges();
  const bool empty = batch.sessions.empty() && batch.processes.empty() && batch.lanes.empty() &&
                     batch.nodes.empty() && batch.node_stats.empty() && batch.metrics.empty() &&
                     batch.scope_events.empty() && batch.gpu_events.empty() &&
                     batch.kernel_scope_events.empty() && batch.cubins.empty();
  if (!empty) {
    const auto commit_start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<store::RefusedSession>> committed = store_->CommitBatch(batch);
    if (!committed.ok()) {
      ++commit_failures_;
      GoBackToTheStoreLocked();
      PublishLocked();
      return committed.status();
    }
    commit_duration_.Observe(std::chrono::steady_clock::now() - commit_start);
    GoBackToTheStoreForRefusedLocked(*committed);
  }
  ForgetKeptTreesChangedBy(batch);
  for (auto& [id, process] : processes_) {
    if (!process.region) continue;
    for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
      process.region->ReleaseLane(lane, process.lanes[lane].read_pos);
    }
  }
  for (ProcessEntry* process : gone) {
    process->region.reset();
    process->row.exited = true;
    process->changed = true;
    unpublished_processes_.insert(process->row.process_id);
  }
  PublishLocked();
  return absl::OkStatus();
}

void ProtondService::DrainProcess(ProcessEntry& process) {
  std::map<uint64_t, ingest::SessionSink> sinks;
  for (auto& [session_id, session] : sessions_) {
    auto member = session.processes.find(process.row.process_id);
    if (session.tree == nullptr || member == session.processes.end()) continue;
    ingest::SessionSink& sink = sinks[session_id];
    sink = {session.tree.get(), &member->second.records, &session.row.problems, nullptr, nullptr};
    sink.pc_sampling = session.mode.pc_sampling;
    sink.cubins = &cubins_to_store_;
    if (session.row.data == store::SessionData::kTrace) {
      sink.scope_events = &session.scope_events;
      sink.gpu_events = &session.gpu_events;
      sink.kernel_scope_events = &session.kernel_scope_events;
    }
  }
  std::vector<uint8_t> scratch;
  for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
    DrainLane(process, lane, sinks, scratch);
  }
  if (const std::string skipped = process.decoder->stats().Summary(); !skipped.empty()) {
    ReportProcessProblem(process, absl::StrCat("process ", process.row.pid, " skipped records: "),
                         skipped);
  }
  const uint64_t no_lane = process.region->NoLaneDroppedRecordsUntrusted();
  if (no_lane > process.no_lane_dropped_seen) {
    CountDrops(process, process.last_session, no_lane - process.no_lane_dropped_seen);
    process.no_lane_dropped_seen = no_lane;
    process.changed = true;
  }
}

void ProtondService::DrainLane(ProcessEntry& process, uint32_t lane, SessionSinks& sinks,
                               std::vector<uint8_t>& scratch) {
  ingest::LaneCursor& cursor = process.lanes[lane];
  if (!cursor.corrupt_reason.empty()) return;
  scratch.clear();
  absl::StatusOr<uint64_t> end = process.region->CopyLane(lane, cursor.read_pos, scratch);
  absl::Status status = end.status();
  if (status.ok() && !scratch.empty()) {
    auto lookup = [&sinks](uint64_t session_id) -> ingest::SessionSink* {
      auto it = sinks.find(session_id);
      return it != sinks.end() ? &it->second : nullptr;
    };
    status = process.decoder->DecodeLane(cursor, scratch, lookup);
    process.changed = true;
    for (auto& [session_id, sink] : sinks) sessions_[session_id].changed = true;
  }
  if (!status.ok()) {
    cursor.corrupt_reason = std::string(status.message());
    ReportProcessProblem(
        process, absl::StrCat("lane ", lane, " of process ", process.row.pid),
        absl::StrCat(" is corrupt (", cursor.corrupt_reason, "); its later records are ignored"));
    process.changed = true;
  }
  const uint64_t dropped = process.region->DroppedRecordsUntrusted(lane);
  if (dropped > cursor.dropped_seen) {
    CountDrops(process, cursor.session_id != 0 ? cursor.session_id : process.last_session,
               dropped - cursor.dropped_seen);
    cursor.dropped_seen = dropped;
    process.changed = true;
  }
}

void ProtondService::CountDrops(ProcessEntry& process, uint64_t session_id, uint64_t dropped) {
  auto session = sessions_.find(session_id);
  if (session == sessions_.end()) return;
  auto member = session->second.processes.find(process.row.process_id);
  if (member == session->second.processes.end()) return;
  member->second.dropped_records += dropped;
  session->second.changed = true;
}

void ProtondService::ReportProcessProblem(ProcessEntry& process, const std::string& subject,
                                          const std::string& detail) {
  for (auto& [session_id, session] : sessions_) {
    if (session.tree == nullptr || !session.processes.contains(process.row.process_id)) continue;
    std::vector<std::string>& problems = session.row.problems;
    auto same_subject = [&subject](const std::string& p) { return p.starts_with(subject); };
    if (auto it = std::find_if(problems.begin(), problems.end(), same_subject);
        it != problems.end()) {
      if (*it == subject + detail) continue;
      *it = subject + detail;  // an updated count replaces the older line
    } else {
      ingest::SessionSink sink{session.tree.get(), nullptr, &problems};
      ingest::ReportProblem(sink, subject + detail);
    }
    session.changed = true;
  }
}

void ProtondService::GoBackToTheStoreLocked() {
  kept_trees_.ForgetAll();
  publish_all_ = true;
  // In place: a stop or an attach waiting for answers (mutex_ released) holds its session.
  absl::StatusOr<std::vector<store::SessionRow>> rows = store_->ListSessions();
  absl::Status reloaded = rows.status();
  std::map<uint64_t, store::SessionRow> stored;
  if (rows.ok()) {
    for (store::SessionRow& row : *rows) stored.emplace(row.session_id, std::move(row));
  }
  for (auto& [session_id, session] : sessions_) {
    if (!reloaded.ok()) break;
    auto row = stored.find(session_id);
    reloaded = ResetSessionToStore(session, row == stored.end() ? nullptr : &row->second);
  }
  for (auto& [id, process] : processes_) {
    process.changed = true;
    if (!reloaded.ok() || !process.region) continue;
    absl::StatusOr<std::optional<store::StoredProcess>> found =
        store_->FindLiveProcess(process.row.pid, process.row.start_time_ticks);
    reloaded = found.ok() ? ResumeFromStore(process, process.region->lane_count(),
                                            *found ? &**found : nullptr)
                          : found.status();
  }
  if (!reloaded.ok()) {
    std::fprintf(stderr,
                 "protond: after a failed commit, reading the store back failed too, "
                 "exiting: %s\n",
                 reloaded.ToString().c_str());
    std::_Exit(1);
  }
}

void ProtondService::GoBackToTheStoreForRefusedLocked(
    const std::vector<store::RefusedSession>& refused) {
  for (const store::RefusedSession& left_out : refused) {
    auto session = sessions_.find(left_out.session_id);
    if (session == sessions_.end()) continue;
    absl::StatusOr<std::optional<store::SessionRow>> stored =
        store_->GetSession(left_out.session_id);
    absl::Status reset = stored.status();
    if (reset.ok()) reset = ResetSessionToStore(session->second, *stored ? &**stored : nullptr);
    if (!reset.ok()) {
      std::fprintf(stderr,
                   "protond: reading session %llu back from the store failed, exiting: %s\n",
                   static_cast<unsigned long long>(left_out.session_id), reset.ToString().c_str());
      std::_Exit(1);
    }
    ingest::SessionSink sink{session->second.tree.get(), nullptr, &session->second.row.problems};
    ingest::ReportProblem(
        sink, absl::StrCat("the store refused this session's data (", left_out.why.message(),
                           "): what it recorded in that commit is lost"));
    session->second.changed = true;
  }
}

void ProtondService::ForgetKeptTreesChangedBy(const store::Batch& batch) {
  std::set<uint64_t> sessions;
  for (const auto& row : batch.nodes) sessions.insert(row.session_id);
  for (const auto& row : batch.node_stats) sessions.insert(row.session_id);
  for (const auto& row : batch.metrics) sessions.insert(row.session_id);
  // Devices are stored by process, and cubins (the instructions' text) by CRC: any session's.
  kept_trees_.Committed(sessions, !batch.devices.empty() || !batch.cubins.empty(),
                        std::chrono::steady_clock::now());
}

store::Batch ProtondService::CollectChanges() {
  store::Batch batch;
  batch.cubins = std::move(cubins_to_store_);
  cubins_to_store_.clear();
  for (auto& [session_id, session] : sessions_) {
    if (session.tree != nullptr) session.tree->TakeChangedRows(batch);
    std::move(session.scope_events.begin(), session.scope_events.end(),
              std::back_inserter(batch.scope_events));
    std::move(session.gpu_events.begin(), session.gpu_events.end(),
              std::back_inserter(batch.gpu_events));
    std::move(session.kernel_scope_events.begin(), session.kernel_scope_events.end(),
              std::back_inserter(batch.kernel_scope_events));
    session.scope_events.clear();
    session.gpu_events.clear();
    session.kernel_scope_events.clear();
    if (!session.changed) continue;
    unpublished_sessions_.insert(session_id);
    batch.sessions.push_back(session.row);
    for (const auto& [process_id, counters] : session.processes) {
      batch.session_processes.push_back(
          {session_id, process_id, counters.records, counters.dropped_records});
    }
    session.changed = false;
  }
  for (auto& [process_id, process] : processes_) {
    if (!process.changed) continue;
    unpublished_processes_.insert(process_id);
    batch.processes.push_back(process.row);
    process.decoder->TakeChangedRows(batch);
    for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
      batch.lanes.push_back(process.lanes[lane].ToRow(process_id, lane));
    }
    // The region's no-free-lane drop counter is kept as one more lane row, after the real lanes.
    batch.lanes.push_back({process_id, static_cast<uint32_t>(process.lanes.size()), 0,
                           process.no_lane_dropped_seen, "", ""});
    process.changed = false;
  }
  return batch;
}

}  // namespace protond::service
