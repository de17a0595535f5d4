#include "daemon/registry/process_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace protond::registry {

v1::Job JobToProto(const Process& process) {
  const store::JobRow& job = process.row.job;
  v1::Job out;
  out.set_rank(job.rank);
  out.set_local_rank(job.local_rank);
  out.set_world_size(job.world_size);
  out.set_slurm_job_id(job.slurm_job_id);
  out.set_slurm_step_id(job.slurm_step_id);
  out.set_pod(job.pod);
  out.set_pod_namespace(job.pod_namespace);
  out.set_cuda_visible_devices(process.cuda_visible_devices);
  return out;
}

template <typename Change>
void ProcessRegistry::Update(uint64_t process_id, Change change) {
  auto it = entries_.find(process_id);
  if (it == entries_.end()) return;
  auto changed = std::make_shared<Process>(*it->second.process);
  change(*changed);
  it->second.process = std::move(changed);
}

void ProcessRegistry::Register(const store::ProcessRow& row,
                               const std::string& cuda_visible_devices) {
  absl::MutexLock lock(&mutex_);
  Entry& entry = entries_[row.process_id];
  auto process =
      entry.process ? std::make_shared<Process>(*entry.process) : std::make_shared<Process>();
  process->row = row;
  process->connected = true;
  process->cuda_visible_devices = cuda_visible_devices;
  entry.process = std::move(process);
}

void ProcessRegistry::Disconnect(uint64_t process_id) {
  absl::MutexLock lock(&mutex_);
  Update(process_id, [](Process& process) { process.connected = false; });
  answered_.SignalAll();  // a command it was given will not be answered
}

void ProcessRegistry::MarkExited(uint64_t process_id) {
  absl::MutexLock lock(&mutex_);
  Update(process_id, [](Process& process) { process.row.exited = true; });
}

void ProcessRegistry::NoteStartAnswer(uint64_t process_id, const std::string& gpu_note) {
  absl::MutexLock lock(&mutex_);
  Update(process_id, [&](Process& process) {
    process.gpu_note = gpu_note;
    process.traced = process.traced || gpu_note.empty();
  });
}

void ProcessRegistry::SetDevices(uint64_t process_id, std::vector<store::DeviceRow> devices) {
  absl::MutexLock lock(&mutex_);
  Update(process_id, [&](Process& process) { process.devices = std::move(devices); });
}

std::shared_ptr<const Process> ProcessRegistry::Find(uint64_t process_id) const {
  absl::MutexLock lock(&mutex_);
  auto it = entries_.find(process_id);
  return it != entries_.end() ? it->second.process : nullptr;
}

std::shared_ptr<const Process> ProcessRegistry::FindLive(uint32_t pid, uint64_t start_ticks) const {
  absl::MutexLock lock(&mutex_);
  for (const auto& [id, entry] : entries_) {
    const store::ProcessRow& row = entry.process->row;
    if (row.pid == pid && row.start_time_ticks == start_ticks) return entry.process;
  }
  return nullptr;
}

Directory ProcessRegistry::Snapshot() const {
  absl::MutexLock lock(&mutex_);
  Directory directory;
  for (const auto& [id, entry] : entries_)
    directory.emplace_hint(directory.end(), id, entry.process);
  return directory;
}

size_t ProcessRegistry::ConnectedCount() const {
  absl::MutexLock lock(&mutex_);
  return std::count_if(entries_.begin(), entries_.end(),
                       [](const auto& entry) { return entry.second.process->connected; });
}

void ProcessRegistry::Push(uint64_t process_id, v1::ControlCommand command) {
  absl::MutexLock lock(&mutex_);
  auto it = entries_.find(process_id);
  if (it == entries_.end()) return;
  command.set_command_id(next_command_id_++);
  it->second.outbox.push_back(std::move(command));
  commands_.SignalAll();
}

std::vector<PushedCommand> ProcessRegistry::PushAwaited(const std::vector<uint64_t>& process_ids,
                                                        const v1::ControlCommand& command) {
  absl::MutexLock lock(&mutex_);
  std::vector<PushedCommand> pushed;
  for (uint64_t process_id : process_ids) {
    auto it = entries_.find(process_id);
    if (it == entries_.end()) continue;
    v1::ControlCommand numbered = command;
    numbered.set_command_id(next_command_id_++);
    awaited_[numbered.command_id()] = std::nullopt;
    pushed.push_back({process_id, numbered.command_id()});
    it->second.outbox.push_back(std::move(numbered));
  }
  commands_.SignalAll();
  return pushed;
}

bool ProcessRegistry::AnsweredLocked(const PushedCommand& pushed) const {
  auto answer = awaited_.find(pushed.command_id);
  if (answer != awaited_.end() && answer->second.has_value()) return true;
  // One whose connection ended will not answer.
  auto entry = entries_.find(pushed.process_id);
  return entry == entries_.end() || !entry->second.process->connected;
}

bool ProcessRegistry::AwaitAnswers(const std::vector<PushedCommand>& pushed,
                                   std::chrono::milliseconds wait) {
  absl::MutexLock lock(&mutex_);
  const auto all_answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return std::all_of(pushed.begin(), pushed.end(),
                       [this](const PushedCommand& p)
                           ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return AnsweredLocked(p); });
  };
  const absl::Time deadline = absl::Now() + absl::FromChrono(wait);
  while (!all_answered()) {
    if (answered_.WaitWithDeadline(&mutex_, deadline)) return all_answered();  // timed out
  }
  return true;
}

std::map<uint64_t, v1::CommandResult> ProcessRegistry::TakeAnswers(
    const std::vector<PushedCommand>& pushed) {
  absl::MutexLock lock(&mutex_);
  std::map<uint64_t, v1::CommandResult> answers;
  for (const PushedCommand& command : pushed) {
    if (auto awaited = awaited_.find(command.command_id); awaited != awaited_.end()) {
      if (awaited->second) answers[command.process_id] = *awaited->second;
      awaited_.erase(awaited);
    }
    if (auto entry = entries_.find(command.process_id); entry != entries_.end()) {
      std::erase_if(entry->second.outbox, [id = command.command_id](const auto& queued) {
        return queued.command_id() == id;
      });
    }
  }
  return answers;
}

std::optional<v1::ControlCommand> ProcessRegistry::NextCommand(uint64_t process_id,
                                                               std::chrono::milliseconds wait) {
  absl::MutexLock lock(&mutex_);
  const absl::Time deadline = absl::Now() + absl::FromChrono(wait);
  auto it = entries_.find(process_id);
  if (it == entries_.end()) return std::nullopt;
  // Entries are never erased: `it` stays valid while the wait lets the lock go.
  std::deque<v1::ControlCommand>& outbox = it->second.outbox;
  while (outbox.empty() && !closed_) {
    if (commands_.WaitWithDeadline(&mutex_, deadline)) break;  // timed out
  }
  if (outbox.empty()) return std::nullopt;
  v1::ControlCommand command = std::move(outbox.front());
  outbox.pop_front();
  return command;
}

absl::Status ProcessRegistry::Acknowledge(uint32_t caller_pid, const v1::CommandResult& result) {
  absl::MutexLock lock(&mutex_);
  auto entry = entries_.find(result.process_id());
  if (entry == entries_.end() || entry->second.process->row.pid != caller_pid) {
    return absl::PermissionDeniedError(
        absl::StrCat("process ", result.process_id(), " is not the caller's"));
  }
  auto awaited = awaited_.find(result.command_id());
  if (awaited == awaited_.end()) return absl::OkStatus();  // too late: already given up on
  awaited->second = result;
  answered_.SignalAll();
  return absl::OkStatus();
}

void ProcessRegistry::Close() {
  absl::MutexLock lock(&mutex_);
  closed_ = true;
  commands_.SignalAll();
}

}  // namespace protond::registry
