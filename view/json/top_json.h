// `protonctl top`'s listings (view/tree/top_kernels.h, top_stalls.h) and the session's devices
// as the web page reads them: docs/web.md's /api/top and /api/stalls. Pure functions; no I/O.
#ifndef PROTOND_VIEW_JSON_TOP_JSON_H_
#define PROTOND_VIEW_JSON_TOP_JSON_H_

#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "protond.pb.h"
#include "view/tree/top_kernels.h"
#include "view/tree/top_stalls.h"

namespace protond::view {

// {"columns": [...], "kernels": [{"name", "full_name", "time_ns", "share", "count", "average_ns",
// "tflop_per_s", "gbyte_per_s", "bound", "percent_of_peak", "no_verdict", "text"}, ...],
// "device_lines": [...], "note"}: each number null where `top` prints "-", "bound" "compute" or
// "memory" (null without a verdict, and "no_verdict" then says why), "text" the cells `top`
// prints; "note" the line `top` prints instead of a table, or null.
nlohmann::json TopKernelsJson(const TopKernels& top);

// {"device_columns": [...], "devices": [{"text": [...], "peaks": "..."}, ...]}: a row of
// `protonctl devices` per device (view/render/device_table.h), and the line `top` prints about its
// peaks (DevicePeaksLine).
nlohmann::json DevicesJson(const google::protobuf::RepeatedPtrField<v1::Device>& devices);

// {"columns": [...], "lines": [{"line", "stalled", "share", "samples", "reasons": [{"reason",
// "samples", "share"}], "text"}, ...], "note"}: `top --stalls`' rows. With `instructions`
// (InstructionsByLine of the same session's tree with instructions), each line also has
// "instructions": [{"offset", "sass", "samples", "stalled", "reasons", "reasons_text"}, ...] in
// address order ("sass" empty where the daemon had no text).
nlohmann::json TopStallsJson(
    const TopStalls& top,
    const std::map<std::string, std::vector<StalledInstruction>>* instructions);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JSON_TOP_JSON_H_
