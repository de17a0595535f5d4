// Renders a session's CUDA devices (protond.v1.Tree.devices) for `protonctl devices`. Pure
// functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_DEVICE_TABLE_H_
#define PROTOND_VIEW_RENDER_DEVICE_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "protond.pb.h"

namespace protond::view {

// A header line, then one line per process and device, as the tree lists them: PID, DEVICE (the
// CUDA ordinal), NAME, ARCH ("sm_90"), SMS, CLOCK (MHz), MEMORY CLOCK (MHz), BUS (bits), MEMORY
// (GiB, one decimal), USE ("ran work", or "visible only" for a device the process saw but ran
// nothing on). With no devices, one line that says so about `session_id`.
std::string RenderDeviceTable(uint64_t session_id,
                              const google::protobuf::RepeatedPtrField<v1::Device>& devices);

// The table's column headers, and one device's cells under them.
std::vector<std::string> DeviceTableColumns();
std::vector<std::string> DeviceTableCells(const v1::Device& device);

// kHz as MHz: "1980" for 1980000, "1755.5" for 1755500.
std::string FormatMhz(uint32_t khz);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_DEVICE_TABLE_H_
