#include "view/json/top_json.h"

#include <cmath>
#include <optional>

#include "view/render/device_table.h"
#include "view/tree/frame_names.h"

namespace protond::view {
namespace {

// null for nothing, and for what JSON cannot hold (inf, nan).
nlohmann::json NumberOrNull(const std::optional<double>& value) {
  if (!value.has_value() || !std::isfinite(*value)) return nullptr;
  return *value;
}

nlohmann::json KernelJson(const TopKernelRow& row) {
  nlohmann::json bound = nullptr;
  if (row.memory_bound.has_value()) bound = *row.memory_bound ? "memory" : "compute";
  return {{"name", row.shown_name},
          {"full_name", KernelName(row.name, KernelNames::kFull)},
          {"time_ns", row.time_ns},
          {"share", row.share},
          {"count", row.count},
          {"average_ns", NumberOrNull(row.average_ns)},
          {"tflop_per_s", NumberOrNull(row.tflop_per_s)},
          {"gbyte_per_s", NumberOrNull(row.gbyte_per_s)},
          {"bound", std::move(bound)},
          {"percent_of_peak", NumberOrNull(row.percent_of_peak)},
          {"no_verdict", row.no_verdict_reason.empty() ? nlohmann::json(nullptr)
                                                       : nlohmann::json(row.no_verdict_reason)},
          {"text", row.cells}};
}

nlohmann::json NoteOrNull(const std::string& note) {
  return note.empty() ? nlohmann::json(nullptr) : nlohmann::json(note);
}

nlohmann::json ReasonsJson(const std::vector<StallReason>& reasons) {
  nlohmann::json list = nlohmann::json::array();
  for (const StallReason& reason : reasons) {
    list.push_back(
        {{"reason", reason.reason}, {"samples", reason.samples}, {"share", reason.share}});
  }
  return list;
}

nlohmann::json InstructionsJson(const std::vector<StalledInstruction>& instructions) {
  nlohmann::json list = nlohmann::json::array();
  for (const StalledInstruction& instruction : instructions) {
    const std::vector<StallReason> reasons = TopStallReasons(instruction.counts);
    list.push_back({{"offset", instruction.offset},
                    {"sass", instruction.text},
                    {"samples", instruction.counts.samples},
                    {"stalled", instruction.counts.stalled},
                    {"reasons", ReasonsJson(reasons)},
                    {"reasons_text", StallReasonsText(reasons)}});
  }
  return list;
}

}  // namespace

nlohmann::json TopKernelsJson(const TopKernels& top) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const TopKernelRow& row : top.rows) kernels.push_back(KernelJson(row));
  return {{"columns", TopKernelColumns()},
          {"kernels", std::move(kernels)},
          {"device_lines", top.device_lines},
          {"note", NoteOrNull(top.note)}};
}

nlohmann::json DevicesJson(const google::protobuf::RepeatedPtrField<v1::Device>& devices) {
  nlohmann::json rows = nlohmann::json::array();
  for (const v1::Device& device : devices) {
    rows.push_back({{"text", DeviceTableCells(device)}, {"peaks", DevicePeaksLine(device)}});
  }
  return {{"device_columns", DeviceTableColumns()}, {"devices", std::move(rows)}};
}

nlohmann::json TopStallsJson(
    const TopStalls& top,
    const std::map<std::string, std::vector<StalledInstruction>>* instructions) {
  nlohmann::json lines = nlohmann::json::array();
  for (const StalledLine& line : top.lines) {
    nlohmann::json json = {{"line", line.name},
                           {"stalled", line.counts.stalled},
                           {"share", line.share},
                           {"samples", line.counts.samples},
                           {"reasons", ReasonsJson(TopStallReasons(line.counts))},
                           {"text", line.cells}};
    if (instructions != nullptr) {
      auto found = instructions->find(line.name);
      json["instructions"] =
          found == instructions->end() ? nlohmann::json::array() : InstructionsJson(found->second);
    }
    lines.push_back(std::move(json));
  }
  return {
      {"columns", TopStallColumns()}, {"lines", std::move(lines)}, {"note", NoteOrNull(top.note)}};
}

}  // namespace protond::view
