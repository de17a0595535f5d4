// ProtondService: on demand. Sessions over running processes (protonctl start --pid/--job),
// started and stopped by commands pushed down each process's control connection
// (common/control/control_channel.h) and answered on it; the list of registered processes
// behind protonctl processes.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files/read_file.h"
#include "common/status/status_macros.h"
#include "daemon/attach/remote_loader.h"
#include "daemon/service/protond_service.h"

namespace protond::service {
namespace {

constexpr char kNotRegistered[] =
    "not registered: protond's shim is not loaded in it. Start the program under `protonctl run "
    "-- PROGRAM`, or with LD_PRELOAD (or CUDA_INJECTION64_PATH) set to libprotond_shim.so from "
    "protond's bin folder, and PROTOND_SOCKET if the daemon does not use the default socket";

// The shim's entry for protond's attach (protond_shim_attach in shim/include/protond/shim.h).
constexpr char kShimAttachEntry[] = "protond_shim_attach";
// Finding a safe moment to stop the process at, and each call into it, take at most this long.
constexpr absl::Duration kShimLoadTimeout = absl::Seconds(2);
// How long a process whose shim was just loaded has to register.
constexpr std::chrono::seconds kRegistrationWait{5};

// A session's end is kept in unix ns (int64): a longer duration would overflow it.
constexpr uint64_t kMaxDurationMs = uint64_t{100} * 366 * 24 * 3600 * 1000;  // 100 years

bool CudaLoaded(uint32_t pid) {
  const std::string maps =
      files::ReadWholeFile(absl::StrCat("/proc/", pid, "/maps"), "").value_or("");
  return maps.find("/libcuda.so") != std::string::npos;
}

// What GPU tracing finds or would find in the process. Whether another tool holds CUPTI is only
// known by trying (PyTorch, for one, maps libcupti without subscribing): the answer to the last
// start says it.
std::string GpuState(const registry::Process& process, bool recording) {
  if (!process.gpu_note.empty()) return process.gpu_note;
  if (recording) return "traced by protond";
  if (process.traced) return "CUPTI free when last profiled";
  return CudaLoaded(process.row.pid) ? "CUDA loaded; CUPTI not tried yet" : "CUDA not loaded";
}

}  // namespace

std::string ProtondService::WhyNotLoadable(const Peer& peer,
                                           const attach::TargetState& target) const {
  if (!options_.shim_loading) return "this protond does not load its shim (--no-shim-loading)";
  if (peer.remote) return "protond loads its shim only for a caller on this node, not over TCP";
  const std::string caller = attach::WhyCallerMayNotTrace(
      attach::CallerOf(static_cast<pid_t>(peer.pid), peer.uid), target, attach::YamaPtraceScope());
  if (!caller.empty()) return caller;
  return attach::WhyShimCannotLoad(target, options_.shim_loading->shim_path);
}

std::map<uint32_t, ProtondService::ShimLoad> ProtondService::LoadShimWhereMissing(
    const Peer& peer, const std::vector<uint32_t>& pids) {
  // One at a time: a second start for the same process then finds it registered, rather than
  // traced by protond or with a shim not registered yet.
  absl::MutexLock loading(&shim_loading_mutex_);
  std::set<uint32_t> registered;
  for (const auto& [id, process] : registry_.Snapshot()) {
    if (process->connected && !process->row.exited) registered.insert(process->row.pid);
  }
  std::map<uint32_t, ShimLoad> loads;
  for (uint32_t pid : pids) {
    if (!registered.contains(pid)) loads[pid] = LoadShim(peer, pid);
  }
  return loads;
}

ProtondService::ShimLoad ProtondService::LoadShim(const Peer& peer, uint32_t pid) {
  attach::TargetState target;
  // Without shim loading, or without the process, RefusalFor says it all.
  if (!options_.shim_loading || !attach::ReadTargetState(static_cast<pid_t>(pid), &target)) {
    return {};
  }
  if (std::string why = WhyNotLoadable(peer, target); !why.empty()) return {false, why};
  const auto began = std::chrono::steady_clock::now();
  const absl::StatusOr<attach::LoadResult> loaded = attach::LoadLibraryInto(
      static_cast<pid_t>(pid), {options_.shim_loading->shim_path, kShimAttachEntry,
                                options_.shim_loading->socket_path, kShimLoadTimeout});
  if (!loaded.ok()) {
    return {false, absl::StrCat(loaded.status().message(),
                                target.seccomp ? " (it runs under a seccomp filter)" : "")};
  }
  if (loaded->entry_returned != 0) {
    return {false, absl::StrCat("the shim was loaded but refused to attach (", kShimAttachEntry,
                                " returned ", loaded->entry_returned, "; its stderr may say why)")};
  }
  while (std::chrono::steady_clock::now() - began < kRegistrationWait) {
    for (const auto& [id, process] : registry_.Snapshot()) {
      if (process->connected && !process->row.exited && process->row.pid == pid) {
        const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - began);
        return {true, absl::StrCat("protond loaded its shim into it just now (", took.count(),
                                   " ms; it stays loaded): NVTX ranges and Python frames begun "
                                   "before are not seen")};
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return {false, absl::StrCat("the shim was loaded but did not register within ",
                              kRegistrationWait.count(), " s (its stderr may say why)")};
}

std::string ProtondService::RefusalFor(const Peer& peer, uint32_t pid, uint64_t* process_id) {
  std::shared_ptr<const registry::Process> found;
  bool exited = false;  // a process with this pid registered, and has exited
  for (const auto& [id, process] : registry_.Snapshot()) {
    if (process->row.pid != pid) continue;
    exited = exited || process->row.exited;
    if (!process->row.exited && (found == nullptr || process->connected)) found = process;
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
    for (const auto& [session_id, session] : sessions_.all()) {
      if (session.running() && session.processes.contains(found->row.process_id)) {
        return absl::StrCat("already in session ", session_id, " (", session.row.name,
                            "); stop it first: protonctl stop --session ", session_id);
      }
    }
    *process_id = found->row.process_id;
    return "";
  }
  struct stat proc;
  if (stat(absl::StrCat("/proc/", pid).c_str(), &proc) != 0) {
    return found != nullptr || exited ? "exited" : "no such process";
  }
  if (peer.uid != 0 && proc.st_uid != peer.uid) return another_user(proc.st_uid);
  if (found != nullptr) {
    // Its shim hangs up as the process ends, before /proc lets it go.
    return "not connected to protond now: it is ending, or protond restarted and it has not "
           "reconnected yet (it does by itself: try again in a few seconds)";
  }
  return kNotRegistered;
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
  RETURN_IF_ERROR(mode::ParseSessionMode(request.mode()).status());
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
  std::vector<uint32_t> pids(request.pids().begin(), request.pids().end());
  // Before mutex_: a process whose shim was just loaded takes it to register.
  const std::map<uint32_t, ShimLoad> loads = LoadShimWhereMissing(peer, pids);
  absl::MutexLock lock(&mutex_);
  if (!request.job().empty()) {
    pids.clear();
    for (const auto& [id, process] : registry_.Snapshot()) {
      if (process->connected && process->row.job.name() == request.job()) {
        pids.push_back(process->row.pid);
      }
    }
    if (pids.empty() && !request.include_new()) {
      return absl::NotFoundError(
          absl::StrCat("no registered process of job ", request.job(),
                       " on this node (SLURM_JOB_ID or POD_NAME); protonctl processes lists the "
                       "registered ones"));
    }
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  RETURN_IF_ERROR(EndWindowsOf(pids));
  return AttachLocked(peer, pids, request, /*always_on_window=*/false, loads);
}

absl::StatusOr<v1::AttachResponse> ProtondService::AttachLocked(
    const Peer& peer, const std::vector<uint32_t>& pids, const v1::AttachRequest& request,
    bool always_on_window, const std::map<uint32_t, ShimLoad>& loads) {
  ASSIGN_OR_RETURN(const mode::SessionMode mode, mode::ParseSessionMode(request.mode()));
  v1::AttachResponse response;
  std::vector<uint64_t> eligible;                   // process ids
  std::map<uint64_t, v1::AttachTarget*> target_of;  // by process id
  for (uint32_t pid : pids) {
    v1::AttachTarget* target = response.add_targets();
    target->set_pid(pid);
    uint64_t process_id = 0;
    target->set_reason(RefusalFor(peer, pid, &process_id));
    const auto load = loads.find(pid);
    if (load != loads.end() && target->reason() == kNotRegistered && !load->second.note.empty()) {
      target->set_reason(
          absl::StrCat(kNotRegistered, ". protond could not load it now: ", load->second.note));
    }
    if (process_id != 0) {
      eligible.push_back(process_id);
      target_of[process_id] = target;
    }
  }
  if (eligible.empty() && !request.include_new()) return response;

  const std::string name = !request.name().empty()  ? request.name()
                           : !request.job().empty() ? "job " + request.job()
                                                    : "pid " + absl::StrJoin(pids, ",");
  sessions::Session& session = sessions_.Add(peer.uid, name, request.data(), mode);
  session.row.attached = true;
  session.row.job = request.job();
  session.row.admits_new = request.include_new();
  session.row.always_on_window = always_on_window;
  if (request.duration_ms() != 0) {
    session.row.stop_at_unix_ns =
        session.row.start_time_unix_ns + static_cast<int64_t>(request.duration_ms()) * 1000000;
  }
  for (uint64_t process_id : eligible) cycle_.Join(process_id, session);
  RETURN_IF_ERROR(CommitNewSessionLocked(session.row.session_id));
  v1::ControlCommand start;
  start.mutable_start_recording()->set_session_id(session.row.session_id);
  start.mutable_start_recording()->set_mode(session.row.mode);
  ASSIGN_OR_RETURN(const auto answers, PushAndWait(eligible, start));

  // One that took the command but answered too late must not record into the session.
  v1::ControlCommand stop;
  stop.mutable_stop_recording()->set_session_id(session.row.session_id);
  for (uint64_t process_id : eligible) {
    v1::AttachTarget& target = *target_of[process_id];
    auto answer = answers.find(process_id);
    if (answer != answers.end() && answer->second.ok()) {
      target.set_recording(true);
      std::string reason = answer->second.message();
      if (const auto load = loads.find(target.pid());
          load != loads.end() && load->second.registered) {
        reason = reason.empty() ? load->second.note : absl::StrCat(load->second.note, "; ", reason);
        // The session says it too, once: what the profile lacks outlives the start's answer.
        session.row.problems.push_back(absl::StrCat("pid ", target.pid(), ": ", load->second.note));
      }
      target.set_reason(reason);
      registry_.NoteStartAnswer(process_id, answer->second.message());
      continue;
    }
    target.set_reason(answer == answers.end()
                          ? absl::StrCat("did not answer within ", answer_timeout_.count(), " ms")
                          : absl::StrCat("could not start: ", answer->second.message()));
    session.processes.erase(process_id);
    if (answer == answers.end()) registry_.Push(process_id, stop);
  }
  if (session.processes.empty() && !session.row.admits_new) {
    session.row.problems.push_back("no process could be profiled");
    RETURN_IF_ERROR(EndSession(session, 0));
  } else {
    RETURN_IF_ERROR(RunIngestCycleLocked());
  }
  *response.mutable_session() = ToProto(session);
  return response;
}

v1::ListProcessesResponse ProtondService::ListProcesses(const Peer& peer, bool all) {
  // From the registry and the published sessions: it does not wait for a cycle.
  std::map<uint64_t, std::vector<uint64_t>> sessions_of;  // running sessions by process id
  // Held here: a range-for over `*published_.Get()` would let the list go while it is read,
  // once the next cycle publishes another (found by ASan in the integration tests).
  const std::shared_ptr<const sessions::PublishedList> published = published_.Get();
  for (const auto& session : *published) {
    if (session->proto.state() != v1::Session::RUNNING) continue;
    for (const v1::SessionProcess& member : session->proto.processes()) {
      sessions_of[member.process_id()].push_back(session->proto.id());
    }
  }
  v1::ListProcessesResponse response;
  for (const auto& [process_id, process] : registry_.Snapshot()) {
    if (!process->connected || !MayTouch(peer, *process)) continue;
    v1::ProcessInfo* info = response.add_processes();
    info->set_process_id(process_id);
    info->set_pid(process->row.pid);
    info->set_uid(process->row.uid);
    info->set_command(process->row.command);
    info->set_hostname(process->row.job.hostname);
    *info->mutable_job() = registry::JobToProto(*process);
    for (uint64_t session_id : sessions_of[process_id]) info->add_sessions(session_id);
    for (const store::DeviceRow& device : process->devices) {
      info->add_devices(absl::StrCat(device.device_id, ":", device.name));
    }
    info->set_gpu(GpuState(*process, !info->sessions().empty()));
  }
  if (all) ListProcessesWithoutShim(peer, &response);
  return response;
}

void ProtondService::ListProcessesWithoutShim(const Peer& peer,
                                              v1::ListProcessesResponse* response) const {
  std::set<uint32_t> registered;
  for (const v1::ProcessInfo& process : response->processes()) registered.insert(process.pid());
  for (const pid_t pid : attach::ProcessesWithCudaMapped()) {
    attach::TargetState target;
    if (registered.contains(pid) || !attach::ReadTargetState(pid, &target)) continue;
    // A user learns nothing of other users' processes; a job-limited token nothing beyond them.
    if ((peer.uid != 0 && target.real_uid != peer.uid) || !peer.jobs.empty()) continue;
    v1::ProcessWithoutShim* process = response->add_without_shim();
    process->set_pid(pid);
    process->set_uid(target.real_uid);
    process->set_command(target.command);
    process->set_refusal(WhyNotLoadable(peer, target));
  }
}

absl::Status ProtondService::Acknowledge(const Peer& peer, const v1::CommandResult& result) {
  return registry_.Acknowledge(peer.pid, result);
}

std::optional<v1::ControlCommand> ProtondService::NextCommand(uint64_t process_id,
                                                              std::chrono::milliseconds wait) {
  return registry_.NextCommand(process_id, wait);
}

}  // namespace protond::service
