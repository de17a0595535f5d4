// The ingest cycle: drains every attached lane (RegionReader) through its process's decoder into
// the sessions' call trees, commits the aggregates together with the lanes' positions and the
// decoders' state in one transaction, and only then hands the space back to the writers. After a
// failed commit it goes back to what the store holds, so that the next cycle reads again what the
// rings still hold: each record is stored once.
//
// Not thread-safe: its owner serializes calls with every use of the session table it writes into
// (ProtondService's lock). It reads the registry (whether a process is connected) and tells it of
// exits and devices.
#ifndef PROTOND_DAEMON_INGEST_INGEST_CYCLE_H_
#define PROTOND_DAEMON_INGEST_INGEST_CYCLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/ingest/process_decoder.h"
#include "daemon/ingest/ring_reader.h"
#include "daemon/metrics/metrics.h"
#include "daemon/registry/process_registry.h"
#include "daemon/sessions/session_table.h"
#include "daemon/store/store.h"

namespace protond::ingest {

// What a commit wrote, for the trees kept for queries.
struct Committed {
  std::set<uint64_t> sessions;  // whose trees changed
  bool every_session = false;   // devices or cubins, which any session's tree may show
};

class IngestCycle {
 public:
  IngestCycle(std::unique_ptr<store::Store> store, sessions::SessionTable& sessions,
              registry::ProcessRegistry& registry);

  // Loads what the store holds: the sessions, and where process ids go on.
  absl::Status Load();

  // A process not attached since the daemon started: resumed from its committed lanes and
  // decoder state if the store has it (a daemon restart), else new with a new process id.
  // Returns its row: the stored one, or `identity` with its id.
  absl::StatusOr<store::ProcessRow> AddProcess(const store::ProcessRow& identity,
                                               ring::RegionReader region);
  // A process attached before, registered again: its lanes go on where they were.
  void Reattach(uint64_t process_id, ring::RegionReader region);
  // Its row changed (in the registry): written by the next commit.
  void MarkChanged(uint64_t process_id);
  // The process records into `session` from now on.
  void Join(uint64_t process_id, sessions::Session& session);
  // A session that Remove takes away: drops no process can name are no longer counted into it.
  void ForgetSession(uint64_t session_id);
  // A session that stopped: the decoders drop their state for it.
  void EndSession(uint64_t session_id);

  // Drains and commits. On a failed commit, returns the store's error after going back to what
  // the store holds (exits when it cannot even read it back).
  absl::StatusOr<Committed> Run();
  // Whether a lane is more than half full: a writer may be waiting for room (GPU activity waits
  // rather than drops), so the next cycle should not wait for the commit interval.
  bool ALaneFills() const;

  store::Store& store() { return *store_; }
  // Whether the store's file was removed (an `rm -r` of the state directory) or replaced while
  // the daemon ran; SQLite would go on writing the unlinked file, unseen by the next start.
  bool StoreWasRemoved() const;
  // Writes what the store holds into a new file at `path` and goes on with that one.
  absl::Status WriteTheStoreAnew(const std::string& path);

  uint64_t commit_failures() const { return commit_failures_; }
  const metrics::LatencyHistogram& commit_duration() const { return commit_duration_; }

 private:
  struct ProcessLanes {
    std::optional<ring::RegionReader> region;  // none once the process has exited
    std::unique_ptr<ProcessDecoder> decoder;
    std::vector<LaneCursor> lanes;
    uint64_t no_lane_dropped_seen = 0;
    uint64_t last_session = 0;  // where drops that no lane can name are counted
    bool changed = false;
  };
  using SessionSinks = std::map<uint64_t, SessionSink>;

  void DrainProcess(uint64_t process_id, ProcessLanes& process);
  void DrainLane(uint64_t process_id, ProcessLanes& process, uint32_t lane, SessionSinks& sinks,
                 std::vector<uint8_t>& scratch);
  void CountDrops(uint64_t process_id, uint64_t session_id, uint64_t dropped);
  // The process is gone: if its shim says it did not exit normally, its running sessions' problems
  // say so (a crash or a kill is what a reader of the profile most needs to know of its end).
  void ReportEnd(uint64_t process_id, uint32_t pid, const ring::RegionReader& region);
  // Puts "subject detail" in the problems of the process's running sessions, replacing an older
  // line about the same subject.
  void ReportProcessProblem(uint64_t process_id, const std::string& subject,
                            const std::string& detail);
  store::Batch CollectChanges();
  // The process's decoder and lane cursors as `stored` has them, or at the start without it.
  absl::Status ResumeFromStore(uint64_t process_id, ProcessLanes& process, uint32_t lane_count,
                               const store::StoredProcess* stored);
  // After a failed commit: the sessions and each process's lanes and decoder go back to what the
  // store holds, as a restart would find them, while the processes' regions and connections
  // stay. What was read since the last commit is still in the rings (space is handed back only
  // after a commit) and is read again by the next cycle.
  void GoBackToTheStore();
  // After a commit that left `refused` sessions out: each goes back to what the store holds, and
  // says in its problems that the data of that cycle was refused and is lost.
  void GoBackToTheStoreForRefused(const std::vector<store::RefusedSession>& refused);

  std::unique_ptr<store::Store> store_;
  // protond's own reading of the TSC, measured once per cycle (host_tsc_) for every decoder.
  HostTscClock host_clock_;
  HostTsc host_tsc_;
  sessions::SessionTable& sessions_;
  registry::ProcessRegistry& registry_;
  std::map<uint64_t, ProcessLanes> processes_;  // by process id
  uint64_t next_process_id_ = 1;
  // The cubins that pcsampling sessions received since the last commit.
  std::vector<store::CubinRow> cubins_to_store_;
  // For metrics: every failed commit, and the time of each one that worked.
  uint64_t commit_failures_ = 0;
  metrics::LatencyHistogram commit_duration_;
};

}  // namespace protond::ingest

#endif  // PROTOND_DAEMON_INGEST_INGEST_CYCLE_H_
