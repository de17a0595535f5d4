// Renders the registered processes (protonctl processes) and what an attach did to each target
// (protonctl start). Pure functions; no I/O.
#ifndef PROTOND_VIEW_RENDER_PROCESS_TABLE_H_
#define PROTOND_VIEW_RENDER_PROCESS_TABLE_H_

#include <string>

#include "protond.pb.h"

namespace protond::view {

// A header line, then one line per process: PID, UID, HOST, RANK ("rank/world_size", with
// ",local N" when LOCAL_RANK is set; "-" without), JOB (Slurm "job.step", else the pod, else
// "-"), DEVICES (those its sessions reported, else CUDA_VISIBLE_DEVICES, else "-"), SESSIONS
// (running ones, comma-separated, "-" for none), GPU (what tracing would find), COMMAND (last:
// it may be long). "no registered processes" and a hint when there are none. With `all`, then the
// GPU processes without the shim (PID, UID, ATTACH: "attachable" or why not, COMMAND).
std::string RenderProcessTable(const v1::ListProcessesResponse& processes, bool all = false);

// "session N (NAME): recording K of M processes" (or "no process could be profiled"), then one
// line per target: "  pid P: recording" with ": <warning>" when there is one, or
// "  pid P: <why not>".
std::string RenderAttachResult(const v1::AttachResponse& response);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_PROCESS_TABLE_H_
