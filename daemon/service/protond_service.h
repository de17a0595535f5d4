// protond's operations, independent of transport: a thin facade that authorizes every request by
// the caller's socket credentials, converts, and delegates to the daemon's parts: the process
// registry (daemon/registry), the session table (daemon/sessions), the ingest cycle
// (daemon/ingest/ingest_cycle.h) and the queries (daemon/query).
//
// Threads: every public method may be called from any gRPC thread. mutex_ serializes the session
// table and the ingest cycle, which writes into the sessions' trees; RunIngestCycle runs on the
// ingest thread every commit interval and inline for start, flush and stop. The registry has a
// lock of its own: control connections take commands and give answers, and `protonctl processes`
// lists, without waiting for a cycle. The queries (ListSessions, GetTree, ViewTree, GetTrace) do
// not wait for a cycle either: they read what the last cycle published and the store as last
// committed, on connections of their own.
#ifndef PROTOND_DAEMON_SERVICE_PROTOND_SERVICE_H_
#define PROTOND_DAEMON_SERVICE_PROTOND_SERVICE_H_

#include <chrono>
#include <cstdint>
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
#include "daemon/always_on/history_retention.h"
#include "daemon/always_on/window_scheduler.h"
#include "daemon/attach/target_check.h"
#include "daemon/ingest/ingest_cycle.h"
#include "daemon/metrics/metrics.h"
#include "daemon/query/instruction_text.h"
#include "daemon/query/kept_trees.h"
#include "daemon/query/store_readers.h"
#include "daemon/registry/process_registry.h"
#include "daemon/sessions/session_table.h"
#include "protond.pb.h"

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

// A session name and data value a start may use.
absl::Status CheckNewSession(const std::string& name, v1::Session::Data data);

// Loading the shim into a running process that has none (protonctl start --pid, docs/attach.md).
struct ShimLoading {
  std::string shim_path;    // the installed libprotond_shim.so
  std::string socket_path;  // where the loaded shim registers: this daemon's socket
};

struct ServiceOptions {
  std::string store_path;
  std::chrono::milliseconds commit_interval{100};
  // protond --always-on: windows of every selected process, asked for at each ingest cycle
  // (docs/always-on.md). Unset: none.
  std::optional<always_on::WindowPolicy> always_on;
  // With always_on: how much of the windows' history is kept (protond --history-max).
  always_on::RetentionPolicy retention;
  // Unset (protond --no-shim-loading, and tests): a process without the shim is refused.
  std::optional<ShimLoading> shim_loading;
};

class ProtondService {
 public:
  static absl::StatusOr<std::unique_ptr<ProtondService>> Create(const ServiceOptions& options);
  ~ProtondService();  // stops the ingest thread after a last cycle

  // Registration of a process with the shim (registration.cc). Returns its process id.
  absl::StatusOr<uint64_t> RegisterProcess(const Peer& peer, const v1::RegisterRequest& request);
  // The process's control connection ended (it exited, or will reconnect).
  void ProcessDisconnected(uint64_t process_id);

  // Sessions (sessions.cc). `mode` is Proton's (common/mode/session_mode.h); INVALID_ARGUMENT
  // with the parser's message for one it refuses, and no session is made.
  absl::StatusOr<v1::Session> StartSession(const Peer& peer, const std::string& name,
                                           v1::Session::Data data = v1::Session::TREE,
                                           const std::string& mode = "");
  // Stops a session: its processes are told to stop recording (all but the caller, which does
  // so itself) and have answered, or timed out, before the last drain.
  absl::StatusOr<v1::Session> StopSession(const Peer& peer, uint64_t session_id);
  // The running session that process `pid` records into, for stop --pid.
  absl::StatusOr<uint64_t> SessionOfProcess(const Peer& peer, uint32_t pid);
  absl::StatusOr<v1::Session> FlushSession(const Peer& peer, uint64_t session_id);

  // Queries (queries.cc).
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
  // Any session's NCCL collective calls (query/collective_query.h), as the plugin reported them.
  absl::StatusOr<v1::Collectives> GetCollectives(const Peer& peer, uint64_t session_id);
  // The always-on windows `peer` may see (as ListSessions lists them) that `request` selects,
  // oldest first, with their summaries (view/history/window_selection.h); INVALID_ARGUMENT names
  // a bad selection.
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(const Peer& peer,
                                                      const v1::ListHistoryRequest& request);
  // The windows ListHistory selects and their trees merged (protond.proto's GetRangeTree).
  absl::StatusOr<v1::RangeTree> GetRangeTree(const Peer& peer,
                                             const v1::ListHistoryRequest& request);

  // Drains every attached lane and commits, then applies the history's retention (with
  // --always-on) and summarizes the stopped windows, as the ingest thread's cycle does. Fails
  // only if the store fails.
  absl::Status RunIngestCycle();
  // Whether the store's file was removed or replaced while the daemon ran (IngestCycle).
  bool StoreWasRemoved();
  // Writes what the store holds into a new file at its path (its directory must exist) and goes
  // on with that one: no session is lost.
  absl::Status WriteTheStoreAnew();

  // What GET /metrics reports (metrics_snapshot.cc): the counters of every session that runs or
  // stopped within kStoppedSessionMetricsFor, of every user (the endpoint has no authentication).
  metrics::Snapshot MetricsSnapshot();

  // On demand (attach.cc). A session over running processes (protonctl start --pid/--job): each
  // is told over its control connection, and has answered (or timed out) when this returns. A
  // pid without the shim gets it loaded first, when the caller could trace it (ShimLoading).
  // Says for each pid why it is not recording.
  absl::StatusOr<v1::AttachResponse> Attach(const Peer& peer, const v1::AttachRequest& request);
  // The registered processes the caller may profile (all of them for root); with `all`, also the
  // GPU processes without the shim, each with why it cannot be attached ("" if it can).
  v1::ListProcessesResponse ListProcesses(const Peer& peer, bool all = false);
  // A process's answer to a pushed command.
  absl::Status Acknowledge(const Peer& peer, const v1::CommandResult& result);
  // The next command for the process's control connection; nullopt when none came within `wait`.
  std::optional<v1::ControlCommand> NextCommand(uint64_t process_id,
                                                std::chrono::milliseconds wait);
  // How long a pushed command may take to be answered (tests shorten it).
  void set_answer_timeout(std::chrono::milliseconds timeout) { answer_timeout_ = timeout; }

 private:
  explicit ProtondService(const ServiceOptions& options, std::unique_ptr<store::Store> store);
  void IngestLoop();
  // The cycle, then what queries see: the kept trees it changed, and the sessions published.
  absl::Status RunIngestCycleLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Authorization (access.cc): whether `peer` may see and act on a process or a session: its
  // user's, or any for root, and within the jobs of a job-limited token.
  static bool MayTouch(const Peer& peer, const registry::Process& process);
  bool MayTouch(const Peer& peer, const sessions::Session& session) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  static bool MayTouch(const Peer& peer, const sessions::PublishedSession& session);
  absl::StatusOr<sessions::Session*> OwnedSession(const Peer& peer, uint64_t session_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The published session `session_id` if `peer` may see it; errors as OwnedSession's.
  absl::StatusOr<std::shared_ptr<const sessions::PublishedSession>> PublishedSessionOf(
      const Peer& peer, uint64_t session_id);
  v1::Session ToProto(const sessions::Session& session) const;

  // Sessions (sessions.cc).
  // Commits a session that sessions_.Add made and no process was told of yet; when the store
  // cannot take it, the session is forgotten and the error says it was not started.
  absl::Status CommitNewSessionLocked(uint64_t session_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Tells the session's live processes (but `except_pid`) to stop, drains, and ends it. Lets
  // mutex_ go while it waits for their answers.
  absl::Status EndSession(sessions::Session& session, uint32_t except_pid)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Ends attached sessions whose time is up, or whose processes have all exited.
  absl::Status EndFinishedAttachedSessions() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Pushes `command` to each process and waits (letting mutex_ go, draining meanwhile) until all
  // have answered or the answer timeout passed; the answers by process id (missing: none came).
  absl::StatusOr<std::map<uint64_t, v1::CommandResult>> PushAndWait(
      const std::vector<uint64_t>& process_ids, const v1::ControlCommand& command)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // PushAndWait's work, while commands_awaited_ counts it.
  absl::StatusOr<std::map<uint64_t, v1::CommandResult>> PushAndAwaitAnswers(
      const std::vector<uint64_t>& process_ids, const v1::ControlCommand& command)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Registration (registration.cc).
  // A process of a job joins the running session that admits the job's new processes, if any
  // (protonctl start --job --include-new), and is told to record into it.
  void JoinAdmittingSession(const registry::Process& process) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // On demand (attach.cc).
  // What became of loading the shim into a pid that had none.
  struct ShimLoad {
    bool registered = false;  // the shim was loaded and the process registered
    std::string note;         // what its profile lacks if it registered, else why it did not
  };
  // Loads the shim into each of `pids` that has not registered, where `peer` could trace it, and
  // waits for it to register. Without mutex_: registering takes it.
  std::map<uint32_t, ShimLoad> LoadShimWhereMissing(const Peer& peer,
                                                    const std::vector<uint32_t>& pids)
      ABSL_LOCKS_EXCLUDED(mutex_, shim_loading_mutex_);
  ShimLoad LoadShim(const Peer& peer, uint32_t pid) ABSL_LOCKS_EXCLUDED(mutex_);
  // ListProcesses' `all`: the GPU processes without the shim that `peer` may see.
  void ListProcessesWithoutShim(const Peer& peer, v1::ListProcessesResponse* response) const;
  // Why the shim cannot be loaded into `pid` for `peer` (its /proc state read), "" if it can.
  std::string WhyNotLoadable(const Peer& peer, const attach::TargetState& target) const;
  // Attach's work once its request is checked and its pids are known; `always_on_window` marks
  // the session as a window of protond --always-on.
  absl::StatusOr<v1::AttachResponse> AttachLocked(const Peer& peer,
                                                  const std::vector<uint32_t>& pids,
                                                  const v1::AttachRequest& request,
                                                  bool always_on_window,
                                                  const std::map<uint32_t, ShimLoad>& loads = {})
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Why `pid` cannot join a session of `peer`'s ("" when it can), and its process id if it can.
  std::string RefusalFor(const Peer& peer, uint32_t pid, uint64_t* process_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Always-on profiling (always_on.cc).
  // Opens the windows that windows_ says are due now, each as an attached session with the
  // window's end as its stop time.
  absl::Status OpenDueWindows() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::Status OpenWindow(const always_on::Window& window) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A session started by hand wins over a window: the running windows of `pids` end now.
  absl::Status EndWindowsOf(const std::vector<uint32_t>& pids)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // One step of the history's retention (always_on/history_retention.h) over the stopped
  // windows, within kRetentionStepBudget: the windows it deletes from the store are forgotten
  // here too. Its errors are logged, not returned: ingest goes on.
  void ApplyHistoryRetention() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Summarizes the stopped, committed windows that have no summary yet (each once, when it has
  // stopped; after an upgrade, those an older protond stored, oldest first), within
  // kRetentionStepBudget, and publishes them. Its errors are logged, not returned.
  void SummarizeStoppedWindows() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // For GET /metrics (protond --always-on): per connected process, its windows in the history
  // and its newest summarized window's shares.
  std::vector<metrics::ProcessWindowGauges> AlwaysOnProcessGauges()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // For GET /metrics (protond --always-on): per job with a window started within the last
  // kJobVerdictPeriods periods, the verdict of its newest window whose calls were judged.
  std::vector<metrics::JobVerdictGauges> AlwaysOnJobGauges(int64_t now_unix_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Queries (queries.cc). The session's tree, without mutex_: the kept one, or built from the
  // store as last committed and then kept, unless `keep` is false (a range's windows, read once
  // each, must not push out the trees people come back to).
  absl::StatusOr<std::shared_ptr<const v1::Tree>> TreeOf(const sessions::PublishedSession& session,
                                                         const std::string& rank, bool instructions,
                                                         bool keep = true);

  const ServiceOptions options_;
  registry::ProcessRegistry registry_;  // its own lock, after mutex_
  // Held while shims are loaded into processes (LoadShimWhereMissing), before mutex_.
  absl::Mutex shim_loading_mutex_;
  // The session table and the ingest cycle, which writes into it. Queries do not take it. Before
  // the registry's lock, the published sessions' lock and kept_trees_' lock.
  absl::Mutex mutex_;
  sessions::SessionTable sessions_ ABSL_GUARDED_BY(mutex_);
  ingest::IngestCycle cycle_ ABSL_GUARDED_BY(mutex_);
  sessions::PublishedSessions published_;  // what the last cycle published, for the queries
  int failed_commits_ ABSL_GUARDED_BY(mutex_) = 0;  // in a row, for the log
  // protond --always-on; null without it.
  std::unique_ptr<always_on::WindowScheduler> windows_ ABSL_GUARDED_BY(mutex_);
  std::unique_ptr<always_on::HistoryRetention> retention_ ABSL_GUARDED_BY(mutex_);
  // For the log: whether the cap has deleted a window yet, and the last retention error.
  bool cap_reached_ ABSL_GUARDED_BY(mutex_) = false;
  std::string last_retention_error_ ABSL_GUARDED_BY(mutex_);
  // Windows whose tree could not be summarized (a tree of a bad shape): logged once, not tried
  // again; they are listed without a summary.
  std::set<uint64_t> unsummarizable_ ABSL_GUARDED_BY(mutex_);
  std::string last_summary_error_ ABSL_GUARDED_BY(mutex_);
  // PushAndWait calls that let mutex_ go while their callers hold sessions: no session is removed
  // from the table meanwhile.
  int commands_awaited_ ABSL_GUARDED_BY(mutex_) = 0;
  // How long one retention step may hold the ingest thread (and the store's write lock, a short
  // transaction at a time) between two cycles.
  static constexpr std::chrono::milliseconds kRetentionStepBudget{20};
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  absl::CondVar stop_;
  query::StoreReaders readers_;
  // Trees answered, kept for the next queries: a few, each forgotten after kKeepTreeFor unasked.
  static constexpr size_t kKeptTrees = 8;
  static constexpr std::chrono::seconds kKeepTreeFor{60};
  query::KeptTrees kept_trees_{kKeptTrees, kKeepTreeFor};
  query::InstructionTexts instruction_texts_;
  std::chrono::milliseconds answer_timeout_{10000};
  static constexpr std::chrono::milliseconds kDrainWhileWaiting{5};
  // How often the ingest loop looks at how full the lanes are, between cycles.
  static constexpr std::chrono::milliseconds kFillCheckPeriod{5};
  // A stopped session's counters stay in the metrics this long, so that a scrape after its end
  // sees the final values; after that its series ends instead of growing the output forever.
  static constexpr std::chrono::minutes kStoppedSessionMetricsFor{10};
  // A job's verdict gauges end when no window of it has started for this many periods (the job
  // ended, or left the --always-on-jobs filter), or when retention deleted its judged windows.
  static constexpr int kJobVerdictPeriods = 3;
  std::thread ingest_thread_;
};

}  // namespace protond::service

#endif  // PROTOND_DAEMON_SERVICE_PROTOND_SERVICE_H_
