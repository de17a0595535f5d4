#include "daemon/service/protond_service.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "common/text/session_name.h"
#include "daemon/query/trace_query.h"
#include "daemon/query/tree_query.h"
#include "daemon/service/internal/proc_stat.h"

namespace protond::service {

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

absl::StatusOr<std::unique_ptr<ProtondService>> ProtondService::Create(
    const ServiceOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, store::Store::Open(options.store_path));
  std::unique_ptr<ProtondService> service(new ProtondService(options, std::move(store)));
  {
    absl::MutexLock lock(&service->mutex_);
    RETURN_IF_ERROR(service->LoadSessions());
  }
  service->ingest_thread_ = std::thread([s = service.get()] { s->IngestLoop(); });
  return service;
}

ProtondService::ProtondService(const ServiceOptions& options, std::unique_ptr<store::Store> store)
    : options_(options), store_(std::move(store)), readers_(options.store_path) {}

ProtondService::~ProtondService() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  stop_.SignalAll();
  if (ingest_thread_.joinable()) ingest_thread_.join();
}

absl::Status ProtondService::LoadSessions() {
  ASSIGN_OR_RETURN(next_session_id_, store_->MaxSessionId());
  ASSIGN_OR_RETURN(next_process_id_, store_->MaxProcessId());
  ++next_session_id_;
  ++next_process_id_;
  ASSIGN_OR_RETURN(const std::vector<store::SessionRow> rows, store_->ListSessions());
  for (const store::SessionRow& row : rows) {
    RETURN_IF_ERROR(ResetSessionToStore(sessions_[row.session_id], &row));
  }
  PublishLocked();
  return absl::OkStatus();
}

absl::Status ProtondService::ResetSessionToStore(SessionEntry& session,
                                                 const store::SessionRow* stored) {
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
    ASSIGN_OR_RETURN(auto members, store_->ListSessionProcesses(stored->session_id));
    for (const store::SessionProcessRow& member : members) {
      session.processes[member.process_id] = {member.records, member.dropped_records};
    }
    stored_members = members.size();
  }
  session.scope_events.clear();
  session.gpu_events.clear();
  session.kernel_scope_events.clear();
  session.tree.reset();
  if (session.row.state == store::SessionState::kRunning) {
    session.tree = std::make_unique<aggregate::CallTree>(session.row.session_id);
    if (stored != nullptr) {
      ASSIGN_OR_RETURN(store::StoredTree tree, store_->LoadTree(stored->session_id));
      session.tree->Load(tree);
    }
  }
  // What the store lacks (the session, or a member) is written by the next commit.
  session.changed = stored == nullptr || session.processes.size() > stored_members;
  return absl::OkStatus();
}

bool ProtondService::ALaneFillsLocked() const {
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

void ProtondService::IngestLoop() {
  absl::MutexLock lock(&mutex_);
  while (!stopping_) {
    // A cycle every commit_interval, or sooner when a lane fills: a stop's last GPU buffers
    // (megabytes at once) then pass through a lane in a few cycles, not one per commit_interval.
    // Never sooner after a failed commit: the lanes stay full until one works, and cycles back
    // to back would never release mutex_, so no call would be answered, not even SIGTERM's.
    const auto next_cycle = std::chrono::steady_clock::now() + options_.commit_interval;
    while (!stopping_ && std::chrono::steady_clock::now() < next_cycle &&
           (failed_commits_ > 0 || !ALaneFillsLocked())) {
      stop_.WaitWithTimeout(&mutex_,
                            absl::FromChrono(std::min<std::chrono::steady_clock::duration>(
                                kFillCheckPeriod, next_cycle - std::chrono::steady_clock::now())));
    }
    absl::Status s = RunIngestCycleLocked();
    if (s.ok()) s = EndFinishedAttachedSessions();
    // A failed cycle has gone back to the store (GoBackToTheStoreLocked); the records wait in the
    // rings, which drop and count what no longer fits, until a commit works again.
    if (!s.ok() && failed_commits_++ == 0) {
      std::fprintf(stderr,
                   "protond: commit failed: %s; the records stay in the programs' rings and the "
                   "commit is tried again every %lld ms\n",
                   s.ToString().c_str(), static_cast<long long>(options_.commit_interval.count()));
    } else if (s.ok() && failed_commits_ > 0) {
      std::fprintf(stderr, "protond: commits work again, after %d failed\n", failed_commits_);
      failed_commits_ = 0;
    }
  }
}

absl::Status ProtondService::RunIngestCycle() {
  absl::MutexLock lock(&mutex_);
  return RunIngestCycleLocked();
}

bool ProtondService::StoreWasRemoved() {
  absl::MutexLock lock(&mutex_);
  return !store_->IsAtItsPath();
}

absl::Status ProtondService::WriteTheStoreAnew() {
  absl::MutexLock lock(&mutex_);
  RETURN_IF_ERROR(store_->CopyTo(options_.store_path));
  ASSIGN_OR_RETURN(store_, store::Store::Open(options_.store_path));
  readers_.Forget();
  return absl::OkStatus();
}

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

absl::StatusOr<ProtondService::SessionEntry*> ProtondService::OwnedSession(const Peer& peer,
                                                                           uint64_t session_id) {
  auto it = sessions_.find(session_id);
  const bool found = it != sessions_.end();
  RETURN_IF_ERROR(SessionAccess(peer, session_id, found, found ? it->second.row.uid : 0,
                                found && MayTouch(peer, it->second)));
  return &it->second;
}

absl::StatusOr<std::shared_ptr<const ProtondService::PublishedSession>>
ProtondService::PublishedSessionOf(const Peer& peer, uint64_t session_id) {
  const std::shared_ptr<const PublishedSessions> published = Published();
  auto it = std::lower_bound(published->begin(), published->end(), session_id,
                             [](const auto& entry, uint64_t id) { return entry->proto.id() < id; });
  const bool found = it != published->end() && (*it)->proto.id() == session_id;
  RETURN_IF_ERROR(SessionAccess(peer, session_id, found, found ? (*it)->proto.uid() : 0,
                                found && MayTouch(peer, **it)));
  return *it;
}

bool ProtondService::MayTouch(const Peer& peer, const PublishedSession& session) {
  if (peer.uid != 0 && session.proto.uid() != peer.uid) return false;
  if (peer.jobs.empty()) return true;
  if (session.member_jobs.empty() && session.members_known) {
    return !session.proto.job().empty() && InJobs(peer, session.proto.job());
  }
  return session.members_known &&
         std::all_of(session.member_jobs.begin(), session.member_jobs.end(),
                     [&](const std::string& job) { return InJobs(peer, job); });
}

bool ProtondService::MayTouch(const Peer& peer, const ProcessEntry& process) const {
  return (peer.uid == 0 || process.row.uid == peer.uid) && InJobs(peer, process.row.job.name());
}

bool ProtondService::MayTouch(const Peer& peer, const SessionEntry& session) const {
  if (peer.uid != 0 && session.row.uid != peer.uid) return false;
  if (peer.jobs.empty()) return true;
  // A job-limited token sees a session only if it knows every process in it to be of its jobs;
  // one with no process yet, if it was started for one of them.
  if (session.processes.empty()) return !session.row.job.empty() && InJobs(peer, session.row.job);
  return std::all_of(session.processes.begin(), session.processes.end(),
                     [&](const auto& member) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
                       auto process = processes_.find(member.first);
                       return process != processes_.end() &&
                              InJobs(peer, process->second.row.job.name());
                     });
}

v1::Session ProtondService::ToProto(const SessionEntry& session) const {
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
  uint64_t records = 0;
  uint64_t dropped = 0;
  for (const auto& [process_id, counters] : session.processes) {
    v1::SessionProcess* p = out.add_processes();
    p->set_process_id(process_id);
    p->set_records(counters.records);
    p->set_dropped_records(counters.dropped_records);
    if (auto it = processes_.find(process_id); it != processes_.end()) {
      p->set_pid(it->second.row.pid);
      p->set_command(it->second.row.command);
      p->set_exited(it->second.row.exited);
      *p->mutable_job() = JobToProto(it->second);
    }
    records += counters.records;
    dropped += counters.dropped_records;
  }
  out.set_records(records);
  out.set_dropped_records(dropped);
  for (const std::string& problem : session.row.problems) out.add_problems(problem);
  return out;
}

void ProtondService::PublishLocked() {
  const std::shared_ptr<const PublishedSessions> before = Published();
  auto now = std::make_shared<PublishedSessions>();
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
    auto published = std::make_shared<PublishedSession>();
    published->proto = ToProto(session);
    published->clock_offset_ns = session.row.clock_offset_ns;
    for (const auto& [process_id, counters] : session.processes) {
      auto process = processes_.find(process_id);
      published->members_known = published->members_known && process != processes_.end();
      if (process != processes_.end())
        published->member_jobs.push_back(process->second.row.job.name());
    }
    now->push_back(std::move(published));
  }
  unpublished_sessions_.clear();
  unpublished_processes_.clear();
  publish_all_ = false;
  absl::MutexLock lock(&published_mutex_);
  published_ = std::move(now);
}

std::shared_ptr<const ProtondService::PublishedSessions> ProtondService::Published() {
  absl::MutexLock lock(&published_mutex_);
  if (published_ == nullptr) published_ = std::make_shared<const PublishedSessions>();
  return published_;
}

absl::Status CheckNewSession(const std::string& name, v1::Session::Data data) {
  RETURN_IF_ERROR(text::CheckSessionName(name));
  if (data != v1::Session::DATA_UNSPECIFIED && !v1::Session::Data_IsValid(data)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown session data ", static_cast<int>(data), " (known: 1 tree, 2 trace)"));
  }
  return absl::OkStatus();
}

ProtondService::SessionEntry& ProtondService::NewSession(const Peer& peer, const std::string& name,
                                                         v1::Session::Data data,
                                                         const mode::SessionMode& mode) {
  const uint64_t id = next_session_id_++;
  SessionEntry& session = sessions_[id];
  session.row = {
      id, name.empty() ? "session" : name, peer.uid, store::SessionState::kRunning, NowUnixNs(), 0,
      {}};
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
  SessionEntry& session = NewSession(peer, name, data, mode);
  // A registered process that starts a session records into it (the in-process API).
  for (auto& [process_id, process] : processes_) {
    if (process.connected && process.row.pid == peer.pid && process.row.uid == peer.uid) {
      JoinSession(process, session);
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
  const std::string name = sessions_[session_id].row.name;
  sessions_.erase(session_id);
  for (auto& [process_id, process] : processes_) {
    if (process.last_session == session_id) process.last_session = 0;
  }
  PublishLocked();
  return absl::Status(committed.code(),
                      absl::StrCat("cannot start session '", name, "': ", committed.message()));
}

absl::StatusOr<v1::Session> ProtondService::StopSession(const Peer& peer, uint64_t session_id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(SessionEntry * session, OwnedSession(peer, session_id));
  RETURN_IF_ERROR(EndSession(*session, peer.pid));
  return ToProto(*session);
}

absl::Status ProtondService::EndSession(SessionEntry& session, uint32_t except_pid) {
  if (session.row.state != store::SessionState::kRunning) return absl::OkStatus();
  std::vector<ProcessEntry*> live;
  for (const auto& [process_id, counters] : session.processes) {
    auto it = processes_.find(process_id);
    if (it == processes_.end()) continue;
    const store::ProcessRow& row = it->second.row;
    // One that has exited (its stream may not have ended yet) has nothing more to say.
    if (it->second.connected && row.pid != except_pid &&
        ReadStartTicks(row.pid) == row.start_time_ticks) {
      live.push_back(&it->second);
    }
  }
  if (!live.empty()) {
    // A process that does not answer in time ends its part anyway: its lanes are drained now.
    v1::ControlCommand stop;
    stop.mutable_stop_recording()->set_session_id(session.row.session_id);
    RETURN_IF_ERROR(PushAndWait(live, stop).status());
    if (session.row.state != store::SessionState::kRunning) return absl::OkStatus();
  }
  RETURN_IF_ERROR(RunIngestCycleLocked());  // everything written so far counts
  session.row.state = store::SessionState::kStopped;
  session.row.end_time_unix_ns = NowUnixNs();
  session.changed = true;
  RETURN_IF_ERROR(RunIngestCycleLocked());
  session.tree.reset();
  for (auto& [process_id, process] : processes_) {
    process.decoder->ForgetSession(session.row.session_id);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Session> ProtondService::FlushSession(const Peer& peer, uint64_t session_id) {
  absl::MutexLock lock(&mutex_);
  ASSIGN_OR_RETURN(SessionEntry * session, OwnedSession(peer, session_id));
  RETURN_IF_ERROR(RunIngestCycleLocked());
  return ToProto(*session);
}

v1::ListSessionsResponse ProtondService::ListSessions(const Peer& peer) {
  v1::ListSessionsResponse response;
  for (const auto& session : *Published()) {
    if (MayTouch(peer, *session)) *response.add_sessions() = session->proto;
  }
  return response;
}

absl::StatusOr<v1::Tree> ProtondService::GetTree(const Peer& peer, uint64_t session_id,
                                                 const std::string& rank, bool instructions) {
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, session_id));
  ASSIGN_OR_RETURN(const std::shared_ptr<const v1::Tree> tree,
                   TreeOf(*session, rank, instructions));
  return *tree;
}

absl::StatusOr<std::string> ProtondService::ViewTree(const Peer& peer,
                                                     const v1::ViewTreeRequest& request) {
  ASSIGN_OR_RETURN(const view::ViewOptions options, view::ViewOptionsFromProto(request.options()));
  const std::string view_key = request.options().SerializeAsString();
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, request.session_id()));
  ASSIGN_OR_RETURN(
      const std::shared_ptr<const v1::Tree> tree,
      TreeOf(*session, request.rank(), request.options().format() == v1::ViewOptions::SASS));
  if (std::optional<std::string> kept = kept_trees_.View(tree, view_key)) return *kept;
  // Rendered without a lock: the tree is shared and never changed.
  ASSIGN_OR_RETURN(std::string text, view::RenderProfile(*tree, options));
  kept_trees_.KeepView(tree, view_key, text);
  return text;
}

absl::StatusOr<std::shared_ptr<const v1::Tree>> ProtondService::TreeOf(
    const PublishedSession& session, const std::string& rank, bool instructions) {
  const uint64_t session_id = session.proto.id();
  const query::KeptTrees::Question question{session_id, rank, instructions};
  const query::KeptTrees::Found kept = kept_trees_.Find(question, std::chrono::steady_clock::now());
  if (kept.tree != nullptr) return kept.tree;
  ASSIGN_OR_RETURN(query::StoreReaders::Lease reader, readers_.Take());
  ASSIGN_OR_RETURN(store::StoredTree stored, reader->LoadTree(session_id));
  if (!rank.empty()) {
    ASSIGN_OR_RETURN(const std::vector<uint64_t> processes,
                     ProcessesOfRank(*reader, session_id, rank));
    query::KeepProcesses(processes, stored);
  }
  std::vector<std::string> notes;
  if (instructions) {
    std::vector<query::CubinWork> work = instruction_texts_.Missing(stored);
    for (query::CubinWork& item : work) {
      ASSIGN_OR_RETURN(item.cubin, reader->LoadCubin(item.crc));
    }
    instruction_texts_.Learn(work);  // nvdisasm may take seconds on a large cubin
    notes = instruction_texts_.Name(stored);
  }
  v1::Tree built = query::BuildTree(stored, instructions);
  for (std::string& note : notes) built.add_notes(std::move(note));
  auto tree = std::make_shared<const v1::Tree>(std::move(built));
  kept_trees_.Keep(question, kept.ticket, tree, std::chrono::steady_clock::now());
  return tree;
}

absl::StatusOr<std::vector<uint64_t>> ProtondService::ProcessesOfRank(store::Store& store,
                                                                      uint64_t session_id,
                                                                      const std::string& rank) {
  ASSIGN_OR_RETURN(const std::vector<store::SessionProcessRow> members,
                   store.ListSessionProcesses(session_id));
  std::vector<uint64_t> matching;
  std::set<std::string> ranks;
  for (const store::SessionProcessRow& member : members) {
    ASSIGN_OR_RETURN(const std::optional<store::ProcessRow> process,
                     store.GetProcess(member.process_id));
    if (!process) continue;
    if (process->job.rank == rank) matching.push_back(member.process_id);
    if (!process->job.rank.empty()) ranks.insert(process->job.rank);
  }
  if (matching.empty()) {
    return absl::NotFoundError(
        absl::StrCat("session ", session_id, " has no process of rank ", rank,
                     ranks.empty() ? " (its processes have no RANK)"
                                   : " (its ranks: " + absl::StrJoin(ranks, ", ") + ")"));
  }
  return matching;
}

absl::StatusOr<std::vector<v1::Trace>> ProtondService::GetTrace(const Peer& peer,
                                                                uint64_t session_id) {
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, session_id));
  if (session->proto.data() != v1::Session::TRACE) {
    return absl::FailedPreconditionError(absl::StrCat(
        "session ", session_id, " (", session->proto.name(),
        ") was not started with data=\"trace\": it keeps its call tree only, not the events a "
        "Chrome trace needs"));
  }
  // A trace may hold millions of events: read on a connection of the query's own, as committed.
  ASSIGN_OR_RETURN(query::StoreReaders::Lease reader, readers_.Take());
  ASSIGN_OR_RETURN(store::StoredTrace stored, reader->LoadTrace(session_id));
  return query::BuildTraceChunks(stored, session->clock_offset_ns);
}

}  // namespace protond::service
