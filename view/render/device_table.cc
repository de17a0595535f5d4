#include "view/render/device_table.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "view/render/text_table.h"

namespace protond::view {
namespace {

constexpr TableColumn kColumns[] = {{"PID", true},
                                    {"DEVICE", true},
                                    {"NAME", false},
                                    {"ARCH", false},
                                    {"SMS", true},
                                    {"CLOCK (MHz)", true},
                                    {"MEMORY CLOCK (MHz)", true},
                                    {"BUS (bits)", true},
                                    {"MEMORY (GiB)", true},
                                    {"USE", false}};

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

std::vector<std::string> DeviceTableCells(const v1::Device& device) {
  return {absl::StrCat(device.pid()),
          absl::StrCat(device.device_id()),
          device.name().empty() ? "-" : device.name(),
          device.arch() == 0 ? "-" : absl::StrCat("sm_", device.arch()),
          absl::StrCat(device.num_sms()),
          FormatMhz(device.clock_rate_khz()),
          FormatMhz(device.memory_clock_rate_khz()),
          absl::StrCat(device.bus_width_bits()),
          absl::StrFormat("%.1f", static_cast<double>(device.memory_bytes()) / kBytesPerGiB),
          device.used() ? "ran work" : "visible only"};
}

std::vector<std::string> DeviceTableColumns() { return ColumnHeaders(kColumns); }

std::string RenderDeviceTable(uint64_t session_id,
                              const google::protobuf::RepeatedPtrField<v1::Device>& devices) {
  if (devices.empty()) return absl::StrCat("session ", session_id, " recorded no GPU devices\n");
  std::vector<std::vector<std::string>> rows;
  for (const v1::Device& device : devices) rows.push_back(DeviceTableCells(device));
  return RenderTextTable(kColumns, rows);
}

std::string FormatMhz(uint32_t khz) {
  if (khz % 1000 == 0) return absl::StrCat(khz / 1000);
  std::string mhz = absl::StrFormat("%u.%03u", khz / 1000, khz % 1000);
  while (mhz.back() == '0') mhz.pop_back();  // "1755.500" -> "1755.5"
  return mhz;
}

}  // namespace protond::view
