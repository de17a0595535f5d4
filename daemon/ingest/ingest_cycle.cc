#include "daemon/ingest/ingest_cycle.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "daemon/registry/proc_stat.h"

namespace protond::ingest {

IngestCycle::IngestCycle(std::unique_ptr<store::Store> store, sessions::SessionTable& sessions,
                         registry::ProcessRegistry& registry)
    : store_(std::move(store)), sessions_(sessions), registry_(registry) {}

absl::Status IngestCycle::Load() {
  ASSIGN_OR_RETURN(next_process_id_, store_->MaxProcessId());
  ++next_process_id_;
  return sessions_.Load(*store_);
}

absl::StatusOr<store::ProcessRow> IngestCycle::AddProcess(const store::ProcessRow& identity,
                                                          ring::RegionReader region) {
  ASSIGN_OR_RETURN(std::optional<store::StoredProcess> stored,
                   store_->FindLiveProcess(identity.pid, identity.start_time_ticks));
  store::ProcessRow row = identity;
  if (stored) {
    row = stored->process;
  } else {
    row.process_id = next_process_id_++;
  }
  ProcessLanes& process = processes_[row.process_id];
  RETURN_IF_ERROR(
      ResumeFromStore(row.process_id, process, region.lane_count(), stored ? &*stored : nullptr));
  process.region = std::move(region);
  process.changed = true;
  return row;
}

void IngestCycle::Reattach(uint64_t process_id, ring::RegionReader region) {
  ProcessLanes& process = processes_[process_id];
  process.region = std::move(region);
  process.changed = true;
}

void IngestCycle::MarkChanged(uint64_t process_id) { processes_[process_id].changed = true; }

void IngestCycle::Join(uint64_t process_id, sessions::Session& session) {
  session.processes.try_emplace(process_id);
  session.changed = true;
  processes_[process_id].last_session = session.row.session_id;
}

void IngestCycle::ForgetSession(uint64_t session_id) {
  for (auto& [id, process] : processes_) {
    if (process.last_session == session_id) process.last_session = 0;
  }
}

void IngestCycle::EndSession(uint64_t session_id) {
  for (auto& [id, process] : processes_) {
    if (process.decoder) process.decoder->ForgetSession(session_id);
  }
}

absl::Status IngestCycle::ResumeFromStore(uint64_t process_id, ProcessLanes& process,
                                          uint32_t lane_count, const store::StoredProcess* stored) {
  process.decoder = std::make_unique<ProcessDecoder>(process_id);
  process.lanes.assign(lane_count, {});
  for (uint32_t lane = 0; lane < lane_count; ++lane) process.lanes[lane].lane = lane;
  process.no_lane_dropped_seen = 0;
  if (stored == nullptr) return absl::OkStatus();
  process.decoder->Load(stored->contexts, stored->names);
  for (const store::LaneRow& row : stored->lanes) {
    if (row.lane == lane_count) {
      process.no_lane_dropped_seen = row.dropped_seen;
    } else if (row.lane < lane_count) {
      ASSIGN_OR_RETURN(process.lanes[row.lane], LaneCursor::FromRow(row));
    }
  }
  return absl::OkStatus();
}

bool IngestCycle::ALaneFills() const {
  for (const auto& [id, process] : processes_) {
    if (!process.region) continue;
    for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
      const uint64_t pending =
          process.region->PendingBytesUntrusted(lane, process.lanes[lane].read_pos);
      if (pending > process.region->lane_data_bytes() / 2) return true;
    }
  }
  return false;
}

absl::StatusOr<Committed> IngestCycle::Run() {
  // Decide which processes are gone before draining: whatever they wrote is in this drain.
  std::vector<uint64_t> gone;
  host_tsc_ = host_clock_.Measure();
  for (auto& [id, process] : processes_) {
    if (!process.region) continue;
    const std::shared_ptr<const registry::Process> known = registry_.Find(id);
    const bool is_gone = known != nullptr && !known->connected &&
                         registry::ReadStartTicks(known->row.pid) != known->row.start_time_ticks;
    if (is_gone) gone.push_back(id);
    DrainProcess(id, process);
    if (is_gone) ReportEnd(id, known->row.pid, *process.region);
  }
  store::Batch batch = CollectChanges();
  const bool empty = batch.sessions.empty() && batch.processes.empty() && batch.lanes.empty() &&
                     batch.nodes.empty() && batch.node_stats.empty() && batch.metrics.empty() &&
                     batch.scope_events.empty() && batch.gpu_events.empty() &&
                     batch.kernel_scope_events.empty() && batch.collective_events.empty() &&
                     batch.collective_kernels.empty() && batch.cubins.empty();
  if (!empty) {
    const auto commit_start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<store::RefusedSession>> refused = store_->CommitBatch(batch);
    if (!refused.ok()) {
      ++commit_failures_;
      GoBackToTheStore();
      return refused.status();
    }
    commit_duration_.Observe(std::chrono::steady_clock::now() - commit_start);
    GoBackToTheStoreForRefused(*refused);
  }
  for (auto& [id, process] : processes_) {
    if (!process.region) continue;
    for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
      process.region->ReleaseLane(lane, process.lanes[lane].read_pos);
    }
  }
  for (uint64_t id : gone) {
    processes_[id].region.reset();
    processes_[id].changed = true;
    registry_.MarkExited(id);
    sessions_.NoteProcessChanged(id);
  }
  Committed committed;
  for (const auto& row : batch.nodes) committed.sessions.insert(row.session_id);
  for (const auto& row : batch.node_stats) committed.sessions.insert(row.session_id);
  for (const auto& row : batch.metrics) committed.sessions.insert(row.session_id);
  // Devices are stored by process, and cubins (the instructions' text) by CRC: any session's.
  committed.every_session = !batch.devices.empty() || !batch.cubins.empty();
  return committed;
}

void IngestCycle::DrainProcess(uint64_t process_id, ProcessLanes& process) {
  SessionSinks sinks;
  for (auto& [session_id, session] : sessions_.all()) {
    auto member = session.processes.find(process_id);
    if (!session.running() || member == session.processes.end()) continue;
    SessionSink& sink = sinks[session_id];
    sink = {session.tree.get(), &member->second.records, &session.row.problems, nullptr, nullptr};
    sink.pc_sampling = session.mode.pc_sampling;
    sink.cubins = &cubins_to_store_;
    sink.collective_events = &session.collective_events;
    sink.collective_kernels = &session.collective_kernels;
    if (session.row.data == store::SessionData::kTrace) {
      sink.scope_events = &session.scope_events;
      sink.gpu_events = &session.gpu_events;
      sink.kernel_scope_events = &session.kernel_scope_events;
    }
  }
  std::vector<uint8_t> scratch;
  process.decoder->SetHostTsc(host_tsc_);
  for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
    DrainLane(process_id, process, lane, sinks, scratch);
  }
  const std::shared_ptr<const registry::Process> known = registry_.Find(process_id);
  const uint32_t pid = known ? known->row.pid : 0;
  if (const std::string skipped = process.decoder->stats().Summary(); !skipped.empty()) {
    ReportProcessProblem(process_id, absl::StrCat("process ", pid, " skipped records: "), skipped);
  }
  if (const std::string clock = process.decoder->ClockSummary(); !clock.empty()) {
    ReportProcessProblem(
        process_id, absl::StrCat("process ", pid, " scope times from the TSC may be off: "), clock);
  }
  const uint64_t no_lane = process.region->NoLaneDroppedRecordsUntrusted();
  if (no_lane > process.no_lane_dropped_seen) {
    CountDrops(process_id, process.last_session, no_lane - process.no_lane_dropped_seen);
    process.no_lane_dropped_seen = no_lane;
    process.changed = true;
  }
}

void IngestCycle::DrainLane(uint64_t process_id, ProcessLanes& process, uint32_t lane,
                            SessionSinks& sinks, std::vector<uint8_t>& scratch) {
  LaneCursor& cursor = process.lanes[lane];
  if (!cursor.corrupt_reason.empty()) return;
  scratch.clear();
  absl::StatusOr<uint64_t> end = process.region->CopyLane(lane, cursor.read_pos, scratch);
  absl::Status status = end.status();
  if (status.ok() && !scratch.empty()) {
    auto lookup = [&sinks](uint64_t session_id) -> SessionSink* {
      auto it = sinks.find(session_id);
      return it != sinks.end() ? &it->second : nullptr;
    };
    status = process.decoder->DecodeLane(cursor, scratch, lookup);
    process.changed = true;
    for (auto& [session_id, sink] : sinks) sessions_.Find(session_id)->changed = true;
  }
  if (!status.ok()) {
    cursor.corrupt_reason = std::string(status.message());
    const std::shared_ptr<const registry::Process> known = registry_.Find(process_id);
    ReportProcessProblem(
        process_id, absl::StrCat("lane ", lane, " of process ", known ? known->row.pid : 0),
        absl::StrCat(" is corrupt (", cursor.corrupt_reason, "); its later records are ignored"));
    process.changed = true;
  }
  const uint64_t dropped = process.region->DroppedRecordsUntrusted(lane);
  if (dropped > cursor.dropped_seen) {
    CountDrops(process_id, cursor.session_id != 0 ? cursor.session_id : process.last_session,
               dropped - cursor.dropped_seen);
    cursor.dropped_seen = dropped;
    process.changed = true;
  }
}

void IngestCycle::CountDrops(uint64_t process_id, uint64_t session_id, uint64_t dropped) {
  sessions::Session* session = sessions_.Find(session_id);
  if (session == nullptr) return;
  auto member = session->processes.find(process_id);
  if (member == session->processes.end()) return;
  member->second.dropped_records += dropped;
  session->changed = true;
}

void IngestCycle::ReportEnd(uint64_t process_id, uint32_t pid, const ring::RegionReader& region) {
  if (region.ExitStateUntrusted() != ring::kExitNotYet) return;
  ReportProcessProblem(process_id, absl::StrCat("process ", pid, " ended without exit(): "),
                       "killed by a signal, crashed, or _exit; what it recorded up to then is "
                       "kept, GPU work CUPTI had not delivered yet is lost");
}

void IngestCycle::ReportProcessProblem(uint64_t process_id, const std::string& subject,
                                       const std::string& detail) {
  for (auto& [session_id, session] : sessions_.all()) {
    if (!session.running() || !session.processes.contains(process_id)) continue;
    std::vector<std::string>& problems = session.row.problems;
    auto same_subject = [&subject](const std::string& p) { return p.starts_with(subject); };
    if (auto it = std::find_if(problems.begin(), problems.end(), same_subject);
        it != problems.end()) {
      if (*it == subject + detail) continue;
      *it = subject + detail;  // an updated count replaces the older line
    } else {
      SessionSink sink{session.tree.get(), nullptr, &problems};
      ReportProblem(sink, subject + detail);
    }
    session.changed = true;
  }
}

store::Batch IngestCycle::CollectChanges() {
  store::Batch batch;
  batch.cubins = std::move(cubins_to_store_);
  cubins_to_store_.clear();
  for (auto& [session_id, session] : sessions_.all()) {
    if (session.running()) session.tree->TakeChangedRows(batch);
    std::move(session.scope_events.begin(), session.scope_events.end(),
              std::back_inserter(batch.scope_events));
    std::move(session.gpu_events.begin(), session.gpu_events.end(),
              std::back_inserter(batch.gpu_events));
    std::move(session.kernel_scope_events.begin(), session.kernel_scope_events.end(),
              std::back_inserter(batch.kernel_scope_events));
    session.scope_events.clear();
    session.gpu_events.clear();
    std::move(session.collective_events.begin(), session.collective_events.end(),
              std::back_inserter(batch.collective_events));
    std::move(session.collective_kernels.begin(), session.collective_kernels.end(),
              std::back_inserter(batch.collective_kernels));
    session.kernel_scope_events.clear();
    session.collective_events.clear();
    session.collective_kernels.clear();
    if (!session.changed) continue;
    sessions_.NoteSessionChanged(session_id);
    batch.sessions.push_back(session.row);
    for (const auto& [process_id, counters] : session.processes) {
      batch.session_processes.push_back(
          {session_id, process_id, counters.records, counters.dropped_records});
    }
    session.changed = false;
  }
  for (auto& [process_id, process] : processes_) {
    if (!process.changed) continue;
    const std::shared_ptr<const registry::Process> known = registry_.Find(process_id);
    if (known == nullptr) continue;  // registered only once the registry has it
    batch.processes.push_back(known->row);
    const size_t devices_before = batch.devices.size();
    process.decoder->TakeChangedRows(batch);
    if (batch.devices.size() > devices_before) {
      registry_.SetDevices(process_id, process.decoder->devices());
    }
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

void IngestCycle::GoBackToTheStore() {
  sessions_.NoteEverythingChanged();
  // In place: a stop or an attach waiting for answers (the owner's lock released) holds its
  // session.
  absl::StatusOr<std::vector<store::SessionRow>> rows = store_->ListSessions();
  absl::Status reloaded = rows.status();
  std::map<uint64_t, store::SessionRow> stored;
  if (rows.ok()) {
    for (store::SessionRow& row : *rows) stored.emplace(row.session_id, std::move(row));
  }
  for (auto& [session_id, session] : sessions_.all()) {
    if (!reloaded.ok()) break;
    auto row = stored.find(session_id);
    reloaded = sessions::SessionTable::ResetToStore(
        session, row == stored.end() ? nullptr : &row->second, *store_);
  }
  for (auto& [id, process] : processes_) {
    process.changed = true;
    const std::shared_ptr<const registry::Process> known = registry_.Find(id);
    if (!reloaded.ok() || !process.region || known == nullptr) continue;
    absl::StatusOr<std::optional<store::StoredProcess>> found =
        store_->FindLiveProcess(known->row.pid, known->row.start_time_ticks);
    reloaded = found.ok() ? ResumeFromStore(id, process, process.region->lane_count(),
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

void IngestCycle::GoBackToTheStoreForRefused(const std::vector<store::RefusedSession>& refused) {
  for (const store::RefusedSession& left_out : refused) {
    sessions::Session* session = sessions_.Find(left_out.session_id);
    if (session == nullptr) continue;
    absl::StatusOr<std::optional<store::SessionRow>> stored =
        store_->GetSession(left_out.session_id);
    absl::Status reset = stored.status();
    if (reset.ok()) {
      reset =
          sessions::SessionTable::ResetToStore(*session, *stored ? &**stored : nullptr, *store_);
    }
    if (!reset.ok()) {
      std::fprintf(stderr,
                   "protond: reading session %llu back from the store failed, exiting: %s\n",
                   static_cast<unsigned long long>(left_out.session_id), reset.ToString().c_str());
      std::_Exit(1);
    }
    SessionSink sink{session->tree.get(), nullptr, &session->row.problems};
    ReportProblem(sink,
                  absl::StrCat("the store refused this session's data (", left_out.why.message(),
                               "): what it recorded in that commit is lost"));
    session->changed = true;
  }
}

bool IngestCycle::StoreWasRemoved() const { return !store_->IsAtItsPath(); }

absl::Status IngestCycle::WriteTheStoreAnew(const std::string& path) {
  RETURN_IF_ERROR(store_->CopyTo(path));
  ASSIGN_OR_RETURN(store_, store::Store::Open(path));
  return absl::OkStatus();
}

}  // namespace protond::ingest
