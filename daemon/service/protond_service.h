// protond's state and operations, independent of transport: the registry of processes and their
// regions, the sessions, the ingest cycle that drains lanes into call trees and commits them, and
// the authorization of every request by the caller's socket credentials.
//
// Threads: every public method may be called from any gRPC thread; one mutex guards the state.
// RunIngestCycle runs on the ingest thread every commit interval and inline for flush and stop.
// The queries (ListSessions, GetTree, ViewTree, GetTrace) do not wait for it: they read what the
// last cycle published (the sessions as protonctl lists them) and the store as last committed,
// on connections of their own.
#ifndef PROTOND_DAEMON_SERVICE_PROTOND_SERVICE_H_
#define PROTOND_DAEMON_SERVICE_PROTOND_SERVICE_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/mode/session_mode.h"
#include "daemon/aggregate/call_tree.h"
#include "daemon/ingest/process_decoder.h"
#include "daemon/ingest/ring_reader.h"
#include "daemon/metrics/metrics.h"
#include "daemon/query/instruction_text.h"
#include "daemon/query/kept_trees.h"
#include "daemon/query/store_readers.h"
#include "daemon/store/store.h"
#include "protond.pb.h"
#include "view/tree/profile_view.h"

namespace protond::service {

// Who is calling: on the unix socket, the connection's SO_PEERCRED; over TCP, the user and jobs
// that its token names (daemon/server/token_table.h).
struct Peer {
  uint32_t pid = 0;  // 0 for a remote caller: it has no process on this node
  uint32_t uid = 0;
  bool remote = false;
  // A remote caller's token may limit it to these jobs (SLURM_JOB_ID or pod name): it then sees
  // and touches only their processes, and the sessions whose processes all belong to them.
  // Empty: no limit beyond the user's.
  std::vector<std::string> jobs;
};

int64_t NowUnixNs();
// CLOCK_REALTIME - CLOCK_MONOTONIC, for a trace session's events.
int64_t MonotonicToUnixOffsetNs();
// A session name and data value a start may use.
absl::Status CheckNewSession(const std::string& name, v1::Session::Data data);

struct ServiceOptions {
  std::string store_path;
  std::chrono::milliseconds commit_interval{100};
};

class ProtondService {
 public:
  static absl::StatusOr<std::unique_ptr<ProtondService>> Create(const ServiceOptions& options);
  ~ProtondService();  // stops the ingest thread after a last cycle

  // Registration of a process with the shim. Returns its process id.
  absl::StatusOr<uint64_t> RegisterProcess(const Peer& peer, const v1::RegisterRequest& request);
  // The process's control connection ended (it exited, or will reconnect).
  void ProcessDisconnected(uint64_t process_id);

  // `mode` is Proton's (common/mode/session_mode.h); INVALID_ARGUMENT with the parser's message
  // for one it refuses, and no session is made.
  absl::StatusOr<v1::Session> StartSession(const Peer& peer, const std::string& name,
                                           v1::Session::Data data = v1::Session::TREE,
                                           const std::string& mode = "");
  // Stops a session: its processes are told to stop recording (all but the caller, which does
  // so itself) and have answered, or timed out, before the last drain.
  absl::StatusOr<v1::Session> StopSession(const Peer& peer, uint64_t session_id);
  // The running session that process `pid` records into, for stop --pid.
  absl::StatusOr<uint64_t> SessionOfProcess(const Peer& peer, uint32_t pid);
  absl::StatusOr<v1::Session> FlushSession(const Peer& peer, uint64_t session_id);
  v1::ListSessionsResponse ListSessions(const Peer& peer);
  // The session's tree over all its processes, or (`rank` not "") those of that RANK only; with
  // `instructions`, each PC-sampled instruction under its line (query::BuildTree).
  absl::StatusOr<v1::Tree> GetTree(const Peer& peer, uint64_t session_id,
                                   const std::string& rank = "", bool instructions = false);
  // The session's tree as `protonctl tree` prints it with the request's options.
  absl::StatusOr<std::string> ViewTree(const Peer& peer, const v1::ViewTreeRequest& request);
  // A trace session's events, in chunks (query/trace_query.h); FAILED_PRECONDITION for a session
  // that keeps only its tree.
  absl::StatusOr<std::vector<v1::Trace>> GetTrace(const Peer& peer, uint64_t session_id);

  // Drains every attached lane and commits. Fails only if the store fails.
  absl::Status RunIngestCycle();
  // Whether the store's file was removed (an `rm -r` of the state directory) or replaced while
  // the daemon ran; SQLite would go on writing the unlinked file, unseen by the next start.
  bool StoreWasRemoved();
  // Writes what the store holds into a new file at its path (its directory must exist) and goes
  // on with that one: no session is lost.
  absl::Status WriteTheStoreAnew();

  // What GET /metrics reports (metrics_snapshot.cc): the counters of every session that runs or
  // stopped within kStoppedSessionMetricsFor, of every user (the endpoint has no authentication).
  metrics::Snapshot MetricsSnapshot();

  // On demand (attach.cc). A session over running processes that registered with the shim
  // loaded (protonctl start --pid/--job): each is told over its control connection, and has
  // answered (or timed out) when this returns. Says for each pid why it is not recording.
  absl::StatusOr<v1::AttachResponse> Attach(const Peer& peer, const v1::AttachRequest& request);
  v1::ListProcessesResponse ListProcesses(const Peer& peer);
  // A process's answer to a pushed command.
  absl::Status Acknowledge(const Peer& peer, const v1::CommandResult& result);
  // The next command for the process's control connection; nullopt when none came within `wait`.
  std::optional<v1::ControlCommand> NextCommand(uint64_t process_id,
                                                std::chrono::milliseconds wait);
  // How long a pushed command may take to be answered (tests shorten it).
  void set_answer_timeout(std::chrono::milliseconds timeout) { answer_timeout_ = timeout; }

 private:
  struct SessionProcessCounters {
    uint64_t records = 0;
    uint64_t dropped_records = 0;
  };
  struct SessionEntry {
    store::SessionRow row;
    mode::SessionMode mode;                     // row.mode, parsed
    std::unique_ptr<aggregate::CallTree> tree;  // while running
    std::map<uint64_t, SessionProcessCounters> processes;
    // Trace sessions: events decoded since the last commit, written with it.
    std::vector<store::ScopeEventRow> scope_events;
    std::vector<store::GpuEventRow> gpu_events;
    std::vector<store::KernelScopeEventRow> kernel_scope_events;
    bool changed = false;
  };
  struct ProcessEntry {
    store::ProcessRow row;
    std::optional<ring::RegionReader> region;
    std::unique_ptr<ingest::ProcessDecoder> decoder;
    std::vector<ingest::LaneCursor> lanes;
    uint64_t no_lane_dropped_seen = 0;
    uint64_t last_session = 0;  // where drops that no lane can name are counted
    bool connected = false;
    bool changed = false;
    std::string cuda_visible_devices;  // from its registration; not stored
    std::string gpu_note;  // what its last answer to a start said was missing ("": nothing)
    bool traced = false;   // a start has traced its GPU work
    std::deque<v1::ControlCommand> outbox;  // pushed commands its connection has not sent yet
  };

  // A session as queries see it, between two cycles: what the last one published.
  struct PublishedSession {
    v1::Session proto;  // as ListSessions answers it
    // The job of each member (for a job-limited token); false when one is not known.
    std::vector<std::string> member_jobs;
    bool members_known = true;
    int64_t clock_offset_ns = 0;  // a trace session's (SessionRow.clock_offset_ns)
  };
  using PublishedSessions = std::vector<std::shared_ptr<const PublishedSession>>;  // by id

  ProtondService(const ServiceOptions& options, std::unique_ptr<store::Store> store);
  absl::Status LoadSessions() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void IngestLoop();
  // Whether a lane is more than half full: a writer may be waiting for room (GPU activity waits
  // rather than drops), so the next cycle should not wait for commit_interval.
  bool ALaneFillsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::StatusOr<SessionEntry*> OwnedSession(const Peer& peer, uint64_t session_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Whether `peer` may see and act on a process or a session: its user's, or any for root, and
  // within the jobs of a job-limited token.
  bool MayTouch(const Peer& peer, const ProcessEntry& process) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool MayTouch(const Peer& peer, const SessionEntry& session) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  static bool MayTouch(const Peer& peer, const PublishedSession& session);
  v1::Session ToProto(const SessionEntry& session) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Publishes, for the queries, the sessions that changed since the last time.
  void PublishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::shared_ptr<const PublishedSessions> Published();
  // The published session `session_id` if `peer` may see it; errors as OwnedSession's.
  absl::StatusOr<std::shared_ptr<const PublishedSession>> PublishedSessionOf(const Peer& peer,
                                                                             uint64_t session_id);
  absl::StatusOr<uint64_t> AttachProcess(const Peer& peer, const v1::RegisterRequest& request,
                                         ring::RegionReader region, uint64_t start_ticks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void JoinSession(ProcessEntry& process, SessionEntry& session)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A process of a job joins the running session that admits the job's new processes, if any
  // (protonctl start --job --include-new), and is told to record into it.
  void JoinAdmittingSession(ProcessEntry& process) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Commits a session that NewSession made and no process was told of yet; when the store
  // cannot take it, the session is forgotten and the error says it was not started.
  absl::Status CommitNewSessionLocked(uint64_t session_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A running session of `peer`'s, with an empty tree.
  SessionEntry& NewSession(const Peer& peer, const std::string& name, v1::Session::Data data,
                           const mode::SessionMode& mode) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  v1::Job JobToProto(const ProcessEntry& process) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // The session's processes whose RANK is `rank`, from the store; NotFound naming its ranks.
  static absl::StatusOr<std::vector<uint64_t>> ProcessesOfRank(store::Store& store,
                                                               uint64_t session_id,
                                                               const std::string& rank);
  // On demand (attach.cc).
  // Why `pid` cannot join a session of `peer`'s ("" when it can), and its entry if registered.
  std::string RefusalFor(const Peer& peer, uint32_t pid, ProcessEntry** process)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::vector<uint32_t> JobMembers(const std::string& job) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Queues `command` for each process and waits (releasing mutex_) until all have answered or
  // the answer timeout passed; the answers by process id (missing: no answer).
  absl::StatusOr<std::map<uint64_t, v1::CommandResult>> PushAndWait(
      const std::vector<ProcessEntry*>& processes, const v1::ControlCommand& command)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // For protonctl processes: what GPU tracing finds or would find in the process.
  std::string GpuState(const ProcessEntry& process, bool recording) const;
  // Tells the session's live processes (but `except_pid`) to stop, drains, and ends it. Lets
  // mutex_ go while it waits for their answers.
  absl::Status EndSession(SessionEntry& session, uint32_t except_pid)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Ends attached sessions whose time is up, or whose processes have all exited.
  absl::Status EndFinishedAttachedSessions() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Ingest.
  absl::Status RunIngestCycleLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void DrainProcess(ProcessEntry& process) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  using SessionSinks = std::map<uint64_t, ingest::SessionSink>;
  void DrainLane(ProcessEntry& process, uint32_t lane, SessionSinks& sinks,
                 std::vector<uint8_t>& scratch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void CountDrops(ProcessEntry& process, uint64_t session_id, uint64_t dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Puts "subject detail" in the problems of the process's running sessions, replacing an older
  // line about the same subject.
  void ReportProcessProblem(ProcessEntry& process, const std::string& subject,
                            const std::string& detail) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  store::Batch CollectChanges() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The session's tree, without mutex_: the kept one, or built from the store as last committed
  // and kept when the session has stopped.
  absl::StatusOr<std::shared_ptr<const v1::Tree>> TreeOf(const PublishedSession& session,
                                                         const std::string& rank,
                                                         bool instructions);
  // The session as `stored` has it (its row, counters and, while it runs, its tree), or, without
  // a stored row, as new. Members stay, and so does the entry: callers may hold it.
  absl::Status ResetSessionToStore(SessionEntry& session, const store::SessionRow* stored)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // After a failed commit: the sessions and each process's lanes and decoder go back
  // to what the store holds, as a restart would find them, while the processes' regions and
  // connections stay. What was read since the last commit is still in the rings (space is handed
  // back only after a commit) and is read again by the next cycle. Exits if the store cannot be
  // read back either.
  void GoBackToTheStoreLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // After a commit that left `refused` sessions out: each goes back to what the
  // store holds, and says in its problems that the data of that cycle was refused and is lost.
  // Exits if the store cannot be read back.
  void GoBackToTheStoreForRefusedLocked(const std::vector<store::RefusedSession>& refused)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The process's decoder and lane cursors as `stored` has them, or at the start without it.
  absl::Status ResumeFromStore(ProcessEntry& process, uint32_t lane_count,
                               const store::StoredProcess* stored)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Tells kept_trees_ which sessions' trees `batch` changed.
  void ForgetKeptTreesChangedBy(const store::Batch& batch);

  const ServiceOptions options_;
  // The registry, the sessions and the ingest cycle (which holds it while it decodes and
  // commits). Queries do not take it. Before published_mutex_ and kept_trees_' lock.
  absl::Mutex mutex_;
  std::unique_ptr<store::Store> store_ ABSL_GUARDED_BY(mutex_);
  uint64_t next_session_id_ ABSL_GUARDED_BY(mutex_) = 1;
  uint64_t next_process_id_ ABSL_GUARDED_BY(mutex_) = 1;
  std::map<uint64_t, SessionEntry> sessions_ ABSL_GUARDED_BY(mutex_);
  std::map<uint64_t, ProcessEntry> processes_ ABSL_GUARDED_BY(mutex_);
  // What changed since the last PublishLocked: these sessions, the sessions of these processes,
  // or (publish_all_) anything.
  std::set<uint64_t> unpublished_sessions_ ABSL_GUARDED_BY(mutex_);
  std::set<uint64_t> unpublished_processes_ ABSL_GUARDED_BY(mutex_);
  bool publish_all_ ABSL_GUARDED_BY(mutex_) = true;
  absl::Mutex published_mutex_;
  std::shared_ptr<const PublishedSessions> published_ ABSL_GUARDED_BY(published_mutex_);
  query::StoreReaders readers_;
  // Trees answered, kept for the next queries: a few, each forgotten after kKeepTreeFor unasked.
  static constexpr size_t kKeptTrees = 8;
  static constexpr std::chrono::seconds kKeepTreeFor{60};
  query::KeptTrees kept_trees_{kKeptTrees, kKeepTreeFor};
  query::InstructionTexts instruction_texts_;
  // The cubins that pcsampling sessions received since the last commit.
  std::vector<store::CubinRow> cubins_to_store_ ABSL_GUARDED_BY(mutex_);
  // Pushed commands: new ones for the connections (commands_), answers for the waiters (answered_).
  absl::CondVar commands_;
  absl::CondVar answered_;
  uint64_t next_command_id_ ABSL_GUARDED_BY(mutex_) = 1;
  std::map<uint64_t, std::optional<v1::CommandResult>> awaited_
      ABSL_GUARDED_BY(mutex_);  // by command id
  std::chrono::milliseconds answer_timeout_{10000};
  static constexpr std::chrono::milliseconds kDrainWhileWaiting{5};
  // How often the ingest loop looks at how full the lanes are, between cycles.
  static constexpr std::chrono::milliseconds kFillCheckPeriod{5};
  int failed_commits_ ABSL_GUARDED_BY(mutex_) = 0;  // in a row, for the log
  // For metrics: every failed commit, and the time of each one that worked.
  uint64_t commit_failures_ ABSL_GUARDED_BY(mutex_) = 0;
  metrics::LatencyHistogram commit_duration_ ABSL_GUARDED_BY(mutex_);
  // A stopped session's counters stay in the metrics this long, so that a scrape after its end
  // sees the final values; after that its series ends instead of growing the output forever.
  static constexpr std::chrono::minutes kStoppedSessionMetricsFor{10};
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  absl::CondVar stop_;
  std::thread ingest_thread_;
};

}  // namespace protond::service

#endif  // PROTOND_DAEMON_SERVICE_PROTOND_SERVICE_H_
