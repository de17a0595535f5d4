#include "view/render/session_table.h"

#include <time.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/text/printable_text.h"
#include "view/render/text_table.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {{"ID", true},        {"NAME", false},  {"STATE", false},
                                    {"PROCESSES", true}, {"START", false}, {"END", false},
                                    {"RECORDS", true},   {"DROPPED", true}};
// Only when a session is a window of protond --always-on: "window", or "hand" for one started
// by someone.
constexpr TableColumn kOriginColumn = {"ORIGIN", false};
// Last, and only when a session has a mode: most have none.
constexpr TableColumn kModeColumn = {"MODE", false};

absl::string_view StateName(v1::Session::State state) {
  switch (state) {
    case v1::Session::RUNNING:
      return "running";
    case v1::Session::STOPPED:
      return "stopped";
    default:
      return "unknown";
  }
}

std::vector<std::string> SessionRow(const v1::Session& session) {
  const bool running = session.state() == v1::Session::RUNNING;
  return {absl::StrCat(session.id()),
          session.name().empty() ? "-" : session.name(),
          std::string(StateName(session.state())),
          absl::StrCat(session.processes_size()),
          FormatLocalTime(session.start_time_unix_ns()),
          running ? "-" : FormatLocalTime(session.end_time_unix_ns()),
          absl::StrCat(session.records()),
          absl::StrCat(session.dropped_records())};
}

}  // namespace

std::string RenderSessionTable(const google::protobuf::RepeatedPtrField<v1::Session>& sessions) {
  const bool modes = std::any_of(sessions.begin(), sessions.end(), [](const v1::Session& session) {
    return !session.mode().empty();
  });
  const bool windows =
      std::any_of(sessions.begin(), sessions.end(),
                  [](const v1::Session& session) { return session.always_on_window(); });
  std::vector<TableColumn> columns(std::begin(kColumns), std::end(kColumns));
  if (windows) columns.push_back(kOriginColumn);
  if (modes) columns.push_back(kModeColumn);
  std::vector<std::vector<std::string>> rows;
  for (const v1::Session& session : sessions) {
    rows.push_back(SessionRow(session));
    if (windows) rows.back().push_back(session.always_on_window() ? "window" : "hand");
    if (modes) rows.back().push_back(session.mode().empty() ? "-" : session.mode());
  }
  return RenderTextTable(columns, rows);
}

std::string RenderSessionProblems(const v1::Session& session) {
  std::string out;
  for (const std::string& problem : session.problems()) {
    absl::StrAppend(&out, "  problem: ", text::PrintableText(problem), "\n");
  }
  return out;
}

std::string FormatLocalTime(int64_t unix_ns) {
  if (unix_ns == 0) return "-";
  // Floor division, so that a time before 1970 still names the second it falls in.
  time_t seconds = static_cast<time_t>(unix_ns / 1'000'000'000 - (unix_ns % 1'000'000'000 < 0));
  struct tm local;
  if (localtime_r(&seconds, &local) == nullptr) return absl::StrCat("@", seconds);
  char text[32];
  const size_t length = strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return std::string(text, length);
}

}  // namespace protond::view
