// Collective records from the shim's NCCL profiler plugin: a session's calls as protond stored
// them (v1::Collectives), turned into the untrusted records that ValidateCollectives checks, with
// NCCL's words in the view's spelling and the bytes as nccl-tests counts them (docs/jobs.md, "The
// input"). Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_PLUGIN_RECORDS_H_
#define PROTOND_VIEW_JOBS_PLUGIN_RECORDS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protond.pb.h"
#include "view/jobs/collective.h"

namespace protond::view {

// One session's collective calls, read from the protond at `host` ("" for this node's); the
// sessions of one host share its clock (CLOCK_MONOTONIC).
struct PluginSession {
  const v1::Session* session = nullptr;
  const v1::Collectives* collectives = nullptr;
  std::string host;
};

// NCCL's datatype name in the view's spelling ("ncclFloat32" -> "f32", "ncclBfloat16" -> "bf16",
// "ncclInt8" -> "i8"); any other text as given.
std::string NcclDatatypeName(std::string_view nccl_datatype);

// The call's bytes as nccl-tests counts them: `count` elements of the datatype (NCCL's name),
// times `nranks` for AllGather and ReduceScatter, whose count is one rank's part; 0 for a
// datatype of unknown size; UINT64_MAX when the product does not fit (validation refuses it).
uint64_t NcclCallBytes(std::string_view op, std::string_view nccl_datatype, uint64_t count,
                       uint64_t nranks);

// One record per call of each session, in the sessions' order: comm_id, seq, rank and nranks as
// the plugin gave them, the op in the view's spelling where it names a collective (else as
// given), and the host and pid as the session says, not the plugin. `job` goes into each record.
std::vector<CollectiveRecordUntrusted> CollectivesFromPlugin(
    std::span<const PluginSession> sessions, std::string_view job);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_PLUGIN_RECORDS_H_
