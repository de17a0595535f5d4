// ProtondService: on demand. Sessions over running processes (protonctl start --pid/--job),
// started and stopped by commands pushed down each process's control connection
// (common/control/control_channel.h) and answered on it; the list of registered processes
// behind protonctl processes.
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "daemon/service/internal/proc_stat.h"
#include "daemon/service/protond_service.h"

namespace protond::service {
namespace {

constexpr char kNotRegistered[] =
    "not registered: protond's shim is not loaded in it. Start the program under `protonctl run "
    "-- PROGRAM`, or with LD_PRELOAD (or CUDA_INJECTION64_PATH) set to libprotond_shim.so from "
    "protond's bin folder, and PROTOND_SOCKET if the daemon does not use the default socket";

// A session's end is kept in unix ns (int64): a longer duration would overflow it.
constexpr uint64_t kMaxDurationMs = uint64_t{100} * 366 * 24 * 3600 * 1000;  // 100 years

bool CudaLoaded(uint32_t pid) {
  std::ifstream maps(absl::StrCat("/proc/", pid, "/maps"));
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libcuda.so") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// What GPU tracing finds or would find in the process. Whether another tool holds CUPTI is only
// known by trying (PyTorch, for one, maps libcupti without subscribing): the answer to the last
// start says it.
std::string ProtondService::GpuState(const ProcessEntry& process, bool recording) const {
  if (!process.gpu_note.empty()) return process.gpu_note;
  if (recording) return "traced by protond";
  if (process.traced) return "CUPTI free when last profiled";
  return CudaLoaded(process.row.pid) ? "CUDA loaded; CUPTI not tried yet" : "CUDA not loaded";
}

v1::Job ProtondService::JobToProto(const ProcessEntry& process) const {
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

std::string ProtondService::RefusalFor(const Peer& peer, uint32_t pid, ProcessEntry** process) {
  ProcessEntry* found = nullptr;
  bool exited = false;  // a process with this pid registered, and has exited
  for (auto& [id, entry] : processes_) {
    if (entry.row.pid != pid) continue;
    exited = exited || entry.row.exited;
    if (!entry.row.exited && (found == nullptr || entry.connected)) found = &entry;
  }
  const auto another_user = [](uint32_t uid) {
    return absl::StrCat("another user's process (uid ", uid, ")");
  };
  // A job-limited token learns nothing of processes outside its jobs.
  if (!peer.jobs.empty() && (found == nullptr || !MayTouch(peer, *found))) {
    return absl::StrCat("not a process of the jobs this token may touch (",
                        absl::StrJoin(peer.jobs, ", "), ")");
  }
  if (found != nullptr && found->connected) {
    if (peer.uid != 0 && found->row.uid != peer.uid) return another_user(found->row.uid);
    for (const auto& [session_id, session] : sessions_) {
      if (session.tree != nullptr && session.processes.contains(found->row.process_id)) {
        return absl::StrCat("already in session ", session_id, " (", session.row.name,
                            "); stop it first: protonctl stop --session ", session_id);
      }
    }
    *process = found;
    return "";
  }
  struct stat proc;
  if (stat(absl::StrCat("/proc/", pid).c_str(), &proc) != 0) {
    return found != nullptr || exited ? "exited" : "no such process";
  }
  if (peer.uid != 0 && proc.st_uid != peer.uid) return another_user(proc.st_uid);
  if (found != nullptr) {
    return "not connected to protond now (it reconnects by itself after a daemon restart: try "
           "again in a few seconds)";
  }
  return kNotRegistered;
}

std::vector<uint32_t> ProtondService::JobMembers(const std::string& job) const {
  std::vector<uint32_t> pids;
  for (const auto& [id, process] : processes_) {
    if (process.connected && process.row.job.name() == job) {
      pids.push_back(process.row.pid);
    }
  }
  return pids;
}

absl::StatusOr<std::map<uint64_t, v1::CommandResult>> ProtondService::PushAndWait(
    const std::vector<ProcessEntry*>& processes, const v1::ControlCommand& command) {
  std::vector<std::pair<ProcessEntry*, uint64_t>> pushed;  // with the command's id
  for (ProcessEntry* process : processes) {
    v1::ControlCommand numbered = command;
    numbered.set_command_id(next_command_id_++);
    awaited_[numbered.command_id()] = std::nullopt;
    process->outbox.push_back(numbered);
    pushed.emplace_back(process, numbered.command_id());
  }
  commands_.SignalAll();
  // A process whose connection ends meanwhile will not answer.
  const auto all_answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return std::all_of(pushed.begin(), pushed.end(),
                       [this](const auto& p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
                         return awaited_[p.second].has_value() || !p.first->connected;
                       });
  };
  const auto deadline = std::chrono::steady_clock::now() + answer_timeout_;
  while (!all_answered() && std::chrono::steady_clock::now() < deadline) {
    // A process that stops first delivers its GPU work through its lanes, up to a CUPTI buffer
    // at once: drained now, it need not wait a whole commit interval for room.
    answered_.WaitWithTimeout(&mutex_, absl::FromChrono(kDrainWhileWaiting));
    if (all_answered()) break;
    if (absl::Status drained = RunIngestCycleLocked(); !drained.ok()) {
      for (const auto& [process, command_id] : pushed) awaited_.erase(command_id);
      return drained;
    }
  }
  std::map<uint64_t, v1::CommandResult> answers;
  for (auto& [process, command_id] : pushed) {
    auto awaited = awaited_.find(command_id);
    if (awaited->second) answers[process->row.process_id] = *awaited->second;
    awaited_.erase(awaited);
    // Not sent in time (the connection is stuck or gone): withdrawn, so that it never arrives late.
    std::erase_if(process->outbox, [id = command_id](const v1::ControlCommand& queued) {
      return queued.command_id() == id;
    });
  }
  return answers;
}

absl::StatusOr<v1::AttachResponse> ProtondService::Attach(const Peer& peer,
                                                          const v1::AttachRequest& request) {
  if (request.pids().empty() == request.job().empty()) {
    return absl::InvalidArgumentError("attach takes pids or a job, one of the two");
  }
  if (request.include_new() && request.job().empty()) {
    return absl::InvalidArgumentError("include_new goes with a job, not with pids");
  }
  RETURN_IF_ERROR(CheckNewSession(request.name(), request.data()));
  ASSIGN_OR_RETURN(const mode::SessionMode mode, mode::ParseSessionMode(request.mode()));
  if (request.duration_ms() > kMaxDurationMs) {
    return absl::InvalidArgumentError(absl::StrCat("duration of ", request.duration_ms(),
                                                   " ms is more than 100 years (", kMaxDurationMs,
                                                   " ms)"));
  }
  if (!request.job().empty() && !peer.jobs.empty() &&
      std::find(peer.jobs.begin(), peer.jobs.end(), request.job()) == peer.jobs.end()) {
    return absl::PermissionDeniedError(absl::StrCat("this token may touch jobs ",
                                                    absl::StrJoin(peer.jobs, ", "),
                                                    " only, not job ", request.job()));
  }
  absl::MutexLock lock(&mutex_);
  std::vector<uint32_t> pids(request.pids().begin(), request.pids().end());
  if (!request.job().empty()) {
    pids = JobMembers(request.job());
    if (pids.empty() && !request.include_new()) {
      return absl::NotFoundError(
          absl::StrCat("no registered process of job ", request.job(),
                       " on this node (SLURM_JOB_ID or POD_NAME); protonctl processes lists the "
                       "registered ones"));
    }
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());

  v1::AttachResponse response;
  std::vector<ProcessEntry*> eligible;
  std::map<uint64_t, v1::AttachTarget*> target_of;  // by process id
  for (uint32_t pid : pids) {
    v1::AttachTarget* target = response.add_targets();
    target->set_pid(pid);
    ProcessEntry* process = nullptr;
    target->set_reason(RefusalFor(peer, pid, &process));
    if (process != nullptr) {
      eligible.push_back(process);
      target_of[process->row.process_id] = target;
    }
  }
  if (eligible.empty() && !request.include_new()) return response;

  const std::string name = !request.name().empty()  ? request.name()
                           : !request.job().empty() ? "job " + request.job()
                                                    : "pid " + absl::StrJoin(pids, ",");
  SessionEntry& session = NewSession(peer, name, request.data(), mode);
  session.row.attached = true;
  session.row.job = request.job();
  session.row.admits_new = request.include_new();
  if (request.duration_ms() != 0) {
    session.row.stop_at_unix_ns =
        session.row.start_time_unix_ns + static_cast<int64_t>(request.duration_ms()) * 1000000;
  }
  for (ProcessEntry* process : eligible) JoinSession(*process, session);
  RETURN_IF_ERROR(CommitNewSessionLocked(session.row.session_id));
  v1::ControlCommand start;
  start.mutable_start_recording()->set_session_id(session.row.session_id);
  start.mutable_start_recording()->set_mode(session.row.mode);
  ASSIGN_OR_RETURN(const auto answers, PushAndWait(eligible, start));

  std::vector<ProcessEntry*> unanswered;
  for (ProcessEntry* process : eligible) {
    v1::AttachTarget& target = *target_of[process->row.process_id];
    auto answer = answers.find(process->row.process_id);
    if (answer != answers.end() && answer->second.ok()) {
      target.set_recording(true);
      target.set_reason(answer->second.message());
      process->gpu_note = answer->second.message();
      process->traced = process->traced || answer->second.message().empty();
      continue;
    }
    target.set_reason(answer == answers.end()
                          ? absl::StrCat("did not answer within ", answer_timeout_.count(), " ms")
                          : absl::StrCat("could not start: ", answer->second.message()));
    session.processes.erase(process->row.process_id);
    if (answer == answers.end()) unanswered.push_back(process);
  }
  // One that took the command but answered too late must not record into the session.
  v1::ControlCommand stop;
  stop.mutable_stop_recording()->set_session_id(session.row.session_id);
  for (ProcessEntry* process : unanswered) process->outbox.push_back(stop);
  commands_.SignalAll();
  if (session.processes.empty() && !session.row.admits_new) {
    session.row.problems.push_back("no process could be profiled");
    RETURN_IF_ERROR(EndSession(session, 0));
  } else {
    RETURN_IF_ERROR(RunIngestCycleLocked());
  }
  *response.mutable_session() = ToProto(session);
  return response;
}

absl::StatusOr<uint64_t> ProtondService::SessionOfProcess(const Peer& peer, uint32_t pid) {
  absl::MutexLock lock(&mutex_);
  std::vector<uint64_t> found;
  for (const auto& [session_id, session] : sessions_) {
    if (session.tree == nullptr || !MayTouch(peer, session)) continue;
    for (const auto& [process_id, counters] : session.processes) {
      auto process = processes_.find(process_id);
      if (process != processes_.end() && process->second.row.pid == pid) {
        found.push_back(session_id);
      }
    }
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    return absl::NotFoundError(absl::StrCat("process ", pid, " records into no running session"));
  }
  return absl::FailedPreconditionError(absl::StrCat("process ", pid, " records into sessions ",
                                                    absl::StrJoin(found, ", "),
                                                    "; name one with --session"));
}

absl::Status ProtondService::EndFinishedAttachedSessions() {
  const int64_t now = NowUnixNs();
  std::vector<SessionEntry*> finished;
  for (auto& [session_id, session] : sessions_) {
    if (!session.row.attached || session.tree == nullptr) continue;
    const bool time_up = session.row.stop_at_unix_ns != 0 && now >= session.row.stop_at_unix_ns;
    // A member not known since a daemon restart may still reconnect: it counts as alive. A
    // session that admits its job's new processes waits for them (the job's next step).
    const bool all_exited =
        !session.row.admits_new &&
        std::all_of(session.processes.begin(), session.processes.end(),
                    [this](const auto& m) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
                      auto process = processes_.find(m.first);
                      return process != processes_.end() && process->second.row.exited;
                    });
    if (time_up || all_exited) finished.push_back(&session);
  }
  for (SessionEntry* session : finished) RETURN_IF_ERROR(EndSession(*session, 0));
  return absl::OkStatus();
}

v1::ListProcessesResponse ProtondService::ListProcesses(const Peer& peer) {
  absl::MutexLock lock(&mutex_);
  v1::ListProcessesResponse response;
  for (const auto& [process_id, process] : processes_) {
    if (!process.connected || !MayTouch(peer, process)) continue;
    v1::ProcessInfo* info = response.add_processes();
    info->set_process_id(process_id);
    info->set_pid(process.row.pid);
    info->set_uid(process.row.uid);
    info->set_command(process.row.command);
    info->set_hostname(process.row.job.hostname);
    *info->mutable_job() = JobToProto(process);
    for (const auto& [session_id, session] : sessions_) {
      if (session.tree != nullptr && session.processes.contains(process_id)) {
        info->add_sessions(session_id);
      }
    }
    for (const store::DeviceRow& device : process.decoder->devices()) {
      info->add_devices(absl::StrCat(device.device_id, ":", device.name));
    }
    info->set_gpu(GpuState(process, !info->sessions().empty()));
  }
  return response;
}

absl::Status ProtondService::Acknowledge(const Peer& peer, const v1::CommandResult& result) {
  absl::MutexLock lock(&mutex_);
  auto process = processes_.find(result.process_id());
  if (process == processes_.end() || process->second.row.pid != peer.pid) {
    return absl::PermissionDeniedError(
        absl::StrCat("process ", result.process_id(), " is not the caller's"));
  }
  auto awaited = awaited_.find(result.command_id());
  if (awaited == awaited_.end()) return absl::OkStatus();  // too late: already given up on
  awaited->second = result;
  answered_.SignalAll();
  return absl::OkStatus();
}

std::optional<v1::ControlCommand> ProtondService::NextCommand(uint64_t process_id,
                                                              std::chrono::milliseconds wait) {
  absl::MutexLock lock(&mutex_);
  auto it = processes_.find(process_id);
  if (it == processes_.end()) return std::nullopt;
  ProcessEntry& process = it->second;
  const absl::Time deadline = absl::Now() + absl::FromChrono(wait);
  while (process.outbox.empty() && !stopping_) {
    if (commands_.WaitWithDeadline(&mutex_, deadline)) break;  // timed out
  }
  if (process.outbox.empty()) return std::nullopt;
  v1::ControlCommand command = std::move(process.outbox.front());
  process.outbox.pop_front();
  return command;
}

}  // namespace protond::service
