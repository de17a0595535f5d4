// What an NCCL device kernel's name says about the call it runs: the collective, reduction,
// datatype, algorithm and protocol, as NCCL's generate.py spells them into the name. Pure; no I/O.
#ifndef PROTOND_VIEW_JOBS_NCCL_KERNEL_NAME_H_
#define PROTOND_VIEW_JOBS_NCCL_KERNEL_NAME_H_

#include <optional>
#include <string>
#include <string_view>

namespace protond::view {

// What an NCCL device kernel's name says. NCCL 2.19 on: ncclDevKernel_AllReduce_Sum_f32_RING_LL,
// ncclDevKernel_AllGather_RING_LL, ncclDevKernel_SendRecv, ncclDevKernel_Generic[_N]. Before:
// ncclKernel_AllReduce_RING_LL_Sum_float. Fields the name lacks are "".
struct NcclKernel {
  enum class Kind {
    kCollective,    // op known: matched in launch order
    kPointToPoint,  // SendRecv: its pairs differ from rank to rank, so launch order cannot match it
    kGeneric,       // ncclDevKernel_Generic: the name does not say which collective
  };
  Kind kind = Kind::kCollective;
  std::string op;  // NCCL's spelling: "AllReduce", "AllGather", "ReduceScatter", "Broadcast", ...
  std::string reduction;  // "Sum", "Prod", "MinMax", "PreMulSum", "SumPostDiv"
  std::string datatype;   // "f32", "bf16", ...; older names' "float" is "f32"
  std::string algorithm;  // "RING", "TREE", "NVLS", "NVLS_TREE", "COLLNET_DIRECT", "PAT", ...
  std::string protocol;   // "LL", "LL128", "SIMPLE"
};

// The kernel a frame name (as stored: mangled, "_Z39ncclDevKernel_...", or plain, or demangled
// with "void " and parameters) names, when it is an NCCL device kernel; nullopt for any other.
std::optional<NcclKernel> ParseNcclKernelName(std::string_view name);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_NCCL_KERNEL_NAME_H_
