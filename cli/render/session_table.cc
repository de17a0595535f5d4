#include "cli/render/session_table.h"

#include <time.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace protond::cli {
namespace {

struct Column {
  absl::string_view header;
  bool right_aligned;
};

constexpr Column kColumns[] = {{"ID", true},        {"NAME", false},  {"STATE", false},
                               {"PROCESSES", true}, {"START", false}, {"END", false},
                               {"RECORDS", true},   {"DROPPED", true}};
constexpr size_t kColumnCount = std::size(kColumns);

using Row = std::vector<std::string>;

// Terminal columns of UTF-8 text, counted as code points (session names are user input).
size_t DisplayWidth(absl::string_view text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

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

Row SessionRow(const v1::Session& session) {
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

void AppendRow(const Row& row, const std::vector<size_t>& widths, std::string* out) {
  for (size_t c = 0; c < kColumnCount; ++c) {
    const std::string padding(widths[c] - DisplayWidth(row[c]), ' ');
    const bool last = c + 1 == kColumnCount;
    if (kColumns[c].right_aligned) {
      absl::StrAppend(out, padding, row[c]);
    } else {
      absl::StrAppend(out, row[c], last ? "" : padding);
    }
    absl::StrAppend(out, last ? "\n" : "  ");
  }
}

}  // namespace

std::string RenderSessionTable(const google::protobuf::RepeatedPtrField<v1::Session>& sessions) {
  std::vector<Row> rows;
  Row& header = rows.emplace_back();
  for (const Column& column : kColumns) header.emplace_back(column.header);
  for (const v1::Session& session : sessions) rows.push_back(SessionRow(session));
  std::vector<size_t> widths(kColumnCount, 0);
  for (const Row& row : rows) {
    for (size_t c = 0; c < kColumnCount; ++c) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  std::string out;
  for (const Row& row : rows) AppendRow(row, widths, &out);
  return out;
}

std::string RenderSessionProblems(const v1::Session& session) {
  std::string out;
  for (const std::string& problem : session.problems()) {
    absl::StrAppend(&out, "  problem: ", problem, "\n");
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

}  // namespace protond::cli
