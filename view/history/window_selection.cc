#include "view/history/window_selection.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace protond::view {
namespace {

const std::string& JobOfProcess(const v1::Job& job) {
  return job.slurm_job_id().empty() ? job.pod() : job.slurm_job_id();
}

bool AnyProcess(const v1::Session& session,
                const std::function<bool(const v1::SessionProcess&)>& test) {
  return std::any_of(session.processes().begin(), session.processes().end(), test);
}

}  // namespace

bool IsSessionOfJob(const v1::Session& session, const std::string& job) {
  if (job.empty()) return false;
  if (session.job() == job) return true;
  return AnyProcess(session, [&](const v1::SessionProcess& process) {
    return JobOfProcess(process.job()) == job;
  });
}

absl::StatusOr<WindowSelection> WindowSelection::Of(const v1::ListHistoryRequest& request) {
  if (request.pid() != 0 && !request.job().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("pid ", request.pid(), " and job '",
                                                   request.job(), "' cannot be used together"));
  }
  WindowSelection selection(request);
  if (!request.command().empty()) {
    auto command = std::make_shared<const re2::RE2>(request.command(), re2::RE2::Quiet);
    if (!command->ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad command regex '", request.command(), "': ", command->error()));
    }
    selection.command_ = std::move(command);
  }
  return selection;
}

bool WindowSelection::Selects(const v1::Session& session) const {
  if (!session.always_on_window()) return false;
  const int64_t start = session.start_time_unix_ns();
  if (request_.has_since_unix_ns() && start < request_.since_unix_ns()) return false;
  if (request_.has_until_unix_ns() && start >= request_.until_unix_ns()) return false;
  if (!request_.job().empty() && !IsSessionOfJob(session, request_.job())) return false;
  if (request_.pid() != 0 && !AnyProcess(session, [&](const v1::SessionProcess& p) {
        return p.pid() == request_.pid();
      })) {
    return false;
  }
  return command_ == nullptr || AnyProcess(session, [&](const v1::SessionProcess& p) {
           return re2::RE2::PartialMatch(p.command(), *command_);
         });
}

void SortOldestFirst(std::vector<const v1::Session*>& windows) {
  std::stable_sort(windows.begin(), windows.end(), [](const v1::Session* a, const v1::Session* b) {
    return std::pair(a->start_time_unix_ns(), a->id()) <
           std::pair(b->start_time_unix_ns(), b->id());
  });
}

}  // namespace protond::view
