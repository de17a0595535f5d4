// The processes registered with the shim loaded: who each is, whether its control connection is
// up, and the commands pushed down that connection with their answers.
//
// Thread-safe, with a lock of its own: the control connections take their commands and give their
// answers here without waiting for an ingest cycle, and `protonctl processes` lists from here.
// A caller holding the service's lock may call in (the service's lock comes first); nothing here
// calls out.
#ifndef PROTOND_DAEMON_REGISTRY_PROCESS_REGISTRY_H_
#define PROTOND_DAEMON_REGISTRY_PROCESS_REGISTRY_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/store/store.h"
#include "protond.pb.h"

namespace protond::registry {

// A registered process as it was when asked: a copy, never changed (the registry replaces it).
struct Process {
  store::ProcessRow row;  // identity, job, and whether it has exited
  bool connected = false;
  std::string cuda_visible_devices;  // from its registration; not stored
  std::string gpu_note;  // what its last answer to a start said was missing ("": nothing)
  bool traced = false;   // a start has traced its GPU work
  std::vector<store::DeviceRow> devices;  // those its records described
};

// Its job as protonctl shows it.
v1::Job JobToProto(const Process& process);

// Every registered process by process id, as one moment saw them.
using Directory = std::map<uint64_t, std::shared_ptr<const Process>>;

// Commands pushed to processes whose answers someone waits for.
struct PushedCommand {
  uint64_t process_id = 0;
  uint64_t command_id = 0;
};

class ProcessRegistry {
 public:
  // The process (by row.process_id) registered, or registered again after its connection ended:
  // connected, with this identity and job. Commands still queued for it stay.
  void Register(const store::ProcessRow& row, const std::string& cuda_visible_devices);
  // Its control connection ended: it is not connected, and will not answer what it was sent.
  void Disconnect(uint64_t process_id);
  void MarkExited(uint64_t process_id);
  // What its answer to a start said (gpu_note), and whether that start traced its GPU.
  void NoteStartAnswer(uint64_t process_id, const std::string& gpu_note);
  void SetDevices(uint64_t process_id, std::vector<store::DeviceRow> devices);

  std::shared_ptr<const Process> Find(uint64_t process_id) const;
  // The one of pid `pid` whose process started at `start_ticks` (pids are reused), if any.
  std::shared_ptr<const Process> FindLive(uint32_t pid, uint64_t start_ticks) const;
  Directory Snapshot() const;
  size_t ConnectedCount() const;

  // Queues `command` for the process, numbered, without waiting for an answer.
  void Push(uint64_t process_id, v1::ControlCommand command);
  // Queues `command` for each process and returns what to wait for (AwaitAnswers, TakeAnswers).
  std::vector<PushedCommand> PushAwaited(const std::vector<uint64_t>& process_ids,
                                         const v1::ControlCommand& command);
  // Waits up to `wait` for every pushed command to be answered, or its process to disconnect;
  // whether all were.
  bool AwaitAnswers(const std::vector<PushedCommand>& pushed, std::chrono::milliseconds wait);
  // The answers by process id (missing: none came), and no longer waits for the others: a
  // command not sent yet is withdrawn, so that it never arrives late.
  std::map<uint64_t, v1::CommandResult> TakeAnswers(const std::vector<PushedCommand>& pushed);

  // The next command for the process's connection; nullopt when none came within `wait`, or
  // after Close.
  std::optional<v1::ControlCommand> NextCommand(uint64_t process_id,
                                                std::chrono::milliseconds wait);
  // A process's answer to a pushed command; `caller_pid` must be that process's.
  absl::Status Acknowledge(uint32_t caller_pid, const v1::CommandResult& result);
  // The daemon stops: NextCommand returns at once.
  void Close();

 private:
  struct Entry {
    std::shared_ptr<const Process> process;
    std::deque<v1::ControlCommand> outbox;  // pushed commands its connection has not sent yet
  };
  // Replaces the entry's process by a changed copy.
  template <typename Change>
  void Update(uint64_t process_id, Change change) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool AnsweredLocked(const PushedCommand& pushed) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  std::map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  uint64_t next_command_id_ ABSL_GUARDED_BY(mutex_) = 1;
  // Answers by command id; nullopt until it comes.
  std::map<uint64_t, std::optional<v1::CommandResult>> awaited_ ABSL_GUARDED_BY(mutex_);
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  absl::CondVar commands_;  // a command was queued, or the registry closed
  absl::CondVar answered_;  // an answer came, or a process disconnected
};

}  // namespace protond::registry

#endif  // PROTOND_DAEMON_REGISTRY_PROCESS_REGISTRY_H_
