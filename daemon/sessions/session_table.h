// The sessions: each one's row, its members' counters, its call tree while it runs and, for a
// trace session, the events decoded since the last commit; and the copy of them that queries read.
//
// SessionTable is not thread-safe: the ingest cycle writes into the sessions' trees as it
// decodes, so the owner serializes every call with the cycle (ProtondService's lock). What
// Publish hands over (PublishedSessions) has a lock of its own, so that `protonctl sessions` and
// `tree` never wait for a cycle.
#ifndef PROTOND_DAEMON_SESSIONS_SESSION_TABLE_H_
#define PROTOND_DAEMON_SESSIONS_SESSION_TABLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/mode/session_mode.h"
#include "daemon/aggregate/call_tree.h"
#include "daemon/registry/process_registry.h"
#include "daemon/store/store.h"
#include "protond.pb.h"

namespace protond::sessions {

int64_t NowUnixNs();
// CLOCK_REALTIME - CLOCK_MONOTONIC, for a trace session's events.
int64_t MonotonicToUnixOffsetNs();

struct ProcessCounters {
  uint64_t records = 0;
  uint64_t dropped_records = 0;
};

struct Session {
  store::SessionRow row;
  mode::SessionMode mode;                         // row.mode, parsed
  std::unique_ptr<aggregate::CallTree> tree;      // while running
  std::map<uint64_t, ProcessCounters> processes;  // by process id
  // Trace sessions: events decoded since the last commit, written with it.
  std::vector<store::ScopeEventRow> scope_events;
  std::vector<store::GpuEventRow> gpu_events;
  std::vector<store::KernelScopeEventRow> kernel_scope_events;
  // Every session: the NCCL collective calls decoded since the last commit, written with it.
  std::vector<store::CollectiveEventRow> collective_events;
  std::vector<store::CollectiveKernelRow> collective_kernels;
  bool changed = false;  // its row or counters differ from the store's

  bool running() const { return tree != nullptr; }
};

// A session as queries see it, between two cycles: what the last Publish handed over.
struct PublishedSession {
  v1::Session proto;  // as ListSessions answers it
  // The job of each member (for a job-limited token); false when one is not known.
  std::vector<std::string> member_jobs;
  bool members_known = true;
  int64_t clock_offset_ns = 0;  // a trace session's (SessionRow.clock_offset_ns)
};
using PublishedList = std::vector<std::shared_ptr<const PublishedSession>>;  // by id

// What queries read: the list the last SessionTable::Publish handed over. Thread-safe.
class PublishedSessions {
 public:
  std::shared_ptr<const PublishedList> Get() const;
  std::shared_ptr<const PublishedSession> Find(uint64_t session_id) const;
  void Set(std::shared_ptr<const PublishedList> list);

 private:
  mutable absl::Mutex mutex_;
  std::shared_ptr<const PublishedList> list_ ABSL_GUARDED_BY(mutex_) =
      std::make_shared<const PublishedList>();
};

// The session as protonctl lists it, its members described by `processes`.
v1::Session ToProto(const Session& session, const registry::Directory& processes);

// A window's summary as ListHistory and ListSessions answer it.
v1::WindowSummary WindowSummaryToProto(const store::WindowSummaryRow& summary);

class SessionTable {
 public:
  // The sessions `store` holds, running ones with their trees; ids go on after its largest. Their
  // processes as stored, for Publish.
  absl::Status Load(store::Store& store);
  // A new running session of user `uid`, with an empty tree; written by the next commit.
  Session& Add(uint32_t uid, const std::string& name, v1::Session::Data data,
               const mode::SessionMode& mode);
  // An id for a session made elsewhere (an always-on period, written by the store itself), never
  // given before; ResetToStore then reads the session in once it is stored.
  uint64_t NewSessionId() { return next_session_id_++; }
  // Forgets a session that Add made and no commit wrote.
  void Remove(uint64_t session_id);
  Session* Find(uint64_t session_id);
  std::map<uint64_t, Session>& all() { return sessions_; }
  const std::map<uint64_t, Session>& all() const { return sessions_; }

  // The session as `stored` has it (its row, counters and, while it runs, its tree), or, without
  // a stored row, as new. Members stay, and so does the entry: callers may hold it.
  static absl::Status ResetToStore(Session& session, const store::SessionRow* stored,
                                   store::Store& store);

  // What the next Publish must describe anew: a session, the sessions of a process (its identity
  // or job changed, or it exited; not what it recorded), everything.
  void NoteSessionChanged(uint64_t session_id) { unpublished_sessions_.insert(session_id); }
  void NoteProcessChanged(uint64_t process_id) { unpublished_processes_.insert(process_id); }
  void NoteEverythingChanged() { publish_all_ = true; }
  // Hands `published` every session as it is now; running ones and those noted are described
  // anew, the others shared with what it held. A member is described as `processes` (the
  // registry) has it, else as the store had it at Load.
  void Publish(const registry::Directory& processes, PublishedSessions& published);

 private:
  // The session's members as `registered` (the registry) has them, else as stored: only its own,
  // so that describing a session never copies the whole history's processes.
  registry::Directory MembersOf(const Session& session,
                                const registry::Directory& registered) const;

  std::map<uint64_t, Session> sessions_;
  // The members of the sessions loaded, as stored: the registry knows only the processes
  // registered since protond started, and without these a window of yesterday would have no pid
  // or command for `history --pid` to select, nor a job for a job-limited token.
  registry::Directory stored_processes_;
  uint64_t next_session_id_ = 1;
  std::set<uint64_t> unpublished_sessions_;
  std::set<uint64_t> unpublished_processes_;
  bool publish_all_ = true;
};

}  // namespace protond::sessions

#endif  // PROTOND_DAEMON_SESSIONS_SESSION_TABLE_H_
