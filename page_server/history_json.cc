#include "page_server/history_json.h"

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "view/history/window_summary.h"
#include "view/history/window_verdict.h"

namespace protond::page_server {
namespace {

// The query's names are the options' without "--", in the order protonctl's usage gives them.
constexpr std::array<const char*, 5> kOptions = {"pid", "job", "command", "since", "until"};

template <typename T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value.has_value() ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json WindowJson(const v1::Session& session, absl::Time now) {
  const view::WindowOverview summary = view::OverviewOfWindow(session, now);
  nlohmann::json pids = nlohmann::json::array();
  for (const v1::SessionProcess& process : session.processes()) pids.push_back(process.pid());
  return nlohmann::json{
      {"session", absl::StrCat(session.id())},
      {"kind", summary.kind},
      {"who", summary.who},
      {"pids", std::move(pids)},
      {"job", session.job()},
      {"running", session.state() == v1::Session::RUNNING},
      {"start_time_unix_ns", absl::StrCat(session.start_time_unix_ns())},
      {"end_time_unix_ns", absl::StrCat(session.end_time_unix_ns())},
      {"length_ns", absl::ToInt64Nanoseconds(summary.length)},
      {"records", absl::StrCat(session.records())},
      {"gpu_time_ns", summary.gpu_time_ns},
      {"gpu_busy", OrNull(summary.gpu_busy)},
      {"top_kernel", OrNull(summary.top_kernel)},
      {"top_kernel_share", OrNull(summary.top_kernel_share)},
      {"late", OrNull(view::LateRankText(session.window_summary()))},
      {"summarized", session.has_window_summary()},
  };
}

}  // namespace

absl::StatusOr<view::WindowQuery> WindowQueryOf(
    const std::map<std::string, std::string>& parameters, absl::Time now) {
  view::WindowQuery query;
  for (const char* option : kOptions) {
    auto found = parameters.find(option);
    if (found == parameters.end()) continue;
    RETURN_IF_ERROR(view::SetWindowOption(absl::StrCat("--", option), found->second, now, &query));
  }
  RETURN_IF_ERROR(view::CheckWindowSelection(query));
  return query;
}

nlohmann::json HistoryJson(const google::protobuf::RepeatedPtrField<v1::Session>& windows,
                           size_t total_windows, absl::Time now) {
  nlohmann::json listed = nlohmann::json::array();
  for (const v1::Session& window : windows) listed.push_back(WindowJson(window, now));
  nlohmann::json json = {{"windows", std::move(listed)}, {"total_windows", total_windows}};
  if (windows.empty()) json["note"] = view::NoWindowLine(total_windows);
  return json;
}

absl::Status ListHistoryFailed(const absl::Status& status) {
  return absl::UnavailableError(absl::StrCat("protond's ListHistory failed: ", status.message()));
}

}  // namespace protond::page_server
