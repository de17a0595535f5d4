#include "view/render/process_table.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "view/render/text_table.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {{"PID", true},       {"UID", true},  {"HOST", false},
                                    {"RANK", false},     {"JOB", false}, {"DEVICES", false},
                                    {"SESSIONS", false}, {"GPU", false}, {"COMMAND", false}};

std::string OrDash(const std::string& text) { return text.empty() ? "-" : text; }

std::string Rank(const v1::Job& job) {
  if (job.rank().empty()) return "-";
  std::string rank = job.world_size().empty() ? job.rank() : job.rank() + "/" + job.world_size();
  if (!job.local_rank().empty()) absl::StrAppend(&rank, ",local ", job.local_rank());
  return rank;
}

std::string Job(const v1::Job& job) {
  if (!job.slurm_job_id().empty()) {
    return job.slurm_step_id().empty() ? job.slurm_job_id()
                                       : job.slurm_job_id() + "." + job.slurm_step_id();
  }
  // A pod is named as kubectl names it, in its namespace.
  return job.pod_namespace().empty() ? OrDash(job.pod()) : job.pod_namespace() + "/" + job.pod();
}

std::string Devices(const v1::ProcessInfo& process) {
  if (!process.devices().empty()) return absl::StrJoin(process.devices(), ", ");
  const std::string& visible = process.job().cuda_visible_devices();
  return visible.empty() ? "-" : "CUDA_VISIBLE_DEVICES=" + visible;
}

// processes --all: the GPU processes without the shim, and whether start --pid may load it.
std::string RenderProcessesWithoutShim(const v1::ListProcessesResponse& processes) {
  if (processes.without_shim().empty()) {
    return "no GPU process without the shim that you may see (libcuda mapped)\n";
  }
  constexpr TableColumn kWithoutShimColumns[] = {
      {"PID", true}, {"UID", true}, {"ATTACH", false}, {"COMMAND", false}};
  std::vector<std::vector<std::string>> rows;
  for (const v1::ProcessWithoutShim& process : processes.without_shim()) {
    rows.push_back({absl::StrCat(process.pid()), absl::StrCat(process.uid()),
                    process.refusal().empty() ? "attachable" : process.refusal(),
                    OrDash(process.command())});
  }
  return "GPU processes without the shim (protonctl start --pid loads it into an attachable "
         "one):\n" +
         RenderTextTable(kWithoutShimColumns, rows);
}

std::string RenderRegisteredProcesses(const v1::ListProcessesResponse& processes) {
  if (processes.processes().empty()) {
    return "no registered processes (a process registers when protond's shim is loaded in it: "
           "protonctl run, LD_PRELOAD, or protonctl start --pid)\n";
  }
  std::vector<std::vector<std::string>> rows;
  for (const v1::ProcessInfo& process : processes.processes()) {
    rows.push_back({absl::StrCat(process.pid()), absl::StrCat(process.uid()),
                    OrDash(process.hostname()), Rank(process.job()), Job(process.job()),
                    Devices(process),
                    process.sessions().empty() ? "-" : absl::StrJoin(process.sessions(), ","),
                    OrDash(process.gpu()), OrDash(process.command())});
  }
  return RenderTextTable(kColumns, rows);
}

}  // namespace

std::string RenderProcessTable(const v1::ListProcessesResponse& processes, bool all) {
  std::string out = RenderRegisteredProcesses(processes);
  if (all) absl::StrAppend(&out, "\n", RenderProcessesWithoutShim(processes));
  return out;
}

std::string RenderAttachResult(const v1::AttachResponse& response) {
  int recording = 0;
  for (const v1::AttachTarget& target : response.targets()) recording += target.recording();
  const v1::Session& session = response.session();
  std::string out =
      session.admits_new()
          ? absl::StrCat("session ", session.id(), " (", session.name(), "): recording ", recording,
                         " of ", response.targets_size(), " registered process",
                         response.targets_size() == 1 ? "" : "es", " of job ", session.job(),
                         "; those that register later join it\n")
      : recording == 0 ? std::string("no process could be profiled\n")
                       : absl::StrCat("session ", session.id(), " (", session.name(),
                                      "): recording ", recording, " of ", response.targets_size(),
                                      response.targets_size() == 1 ? " process\n" : " processes\n");
  for (const v1::AttachTarget& target : response.targets()) {
    absl::StrAppend(&out, "  pid ", target.pid(), ": ");
    if (target.recording()) {
      absl::StrAppend(&out, "recording", target.reason().empty() ? "" : " (", target.reason(),
                      target.reason().empty() ? "" : ")", "\n");
    } else {
      absl::StrAppend(&out, target.reason(), "\n");
    }
  }
  return out;
}

}  // namespace protond::view
