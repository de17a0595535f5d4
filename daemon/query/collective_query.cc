#include "daemon/query/collective_query.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace protond::query {
namespace {

// The path of each node that a call names, made once per node.
class ScopePaths {
 public:
  explicit ScopePaths(const std::vector<store::NodeRow>& nodes) {
    for (const store::NodeRow& node : nodes) nodes_.emplace(node.node_id, &node);
  }

  const std::string& Of(uint32_t node_id) {
    auto known = paths_.find(node_id);
    if (known != paths_.end()) return known->second;
    // Leaf first; a parent the store lacks (or a cycle, which the tree never makes) ends the walk.
    std::vector<const std::string*> names;
    for (auto node = nodes_.find(node_id); node != nodes_.end() && names.size() <= nodes_.size();
         node = nodes_.find(node->second->parent_id)) {
      names.push_back(&node->second->name);
    }
    std::string path;
    for (auto name = names.rbegin(); name != names.rend(); ++name) {
      absl::StrAppend(&path, path.empty() ? "" : "/", **name);
    }
    return paths_.emplace(node_id, std::move(path)).first->second;
  }

 private:
  absl::flat_hash_map<uint32_t, const store::NodeRow*> nodes_;
  absl::flat_hash_map<uint32_t, std::string> paths_;
};

}  // namespace

v1::Collectives BuildCollectives(const store::StoredCollectives& stored,
                                 const v1::Session& session) {
  absl::flat_hash_map<uint64_t, uint32_t> pids;
  for (const v1::SessionProcess& process : session.processes()) {
    pids[process.process_id()] = process.pid();
  }
  ScopePaths paths(stored.nodes);
  // Correlation ids are per process: (process, id) names one kernel.
  absl::flat_hash_map<std::pair<uint64_t, uint32_t>, const store::CollectiveKernelRow*> kernels;
  for (const store::CollectiveKernelRow& kernel : stored.collective_kernels) {
    kernels.emplace(std::make_pair(kernel.process_id, kernel.correlation_id), &kernel);
  }
  v1::Collectives collectives;
  for (const store::CollectiveEventRow& row : stored.collective_events) {
    v1::CollectiveEvent* event = collectives.add_events();
    event->set_process_id(row.process_id);
    const auto pid = pids.find(row.process_id);
    event->set_pid(pid != pids.end() ? pid->second : 0);
    event->set_rank(row.rank);
    event->set_nranks(row.nranks);
    event->set_comm_hash(row.comm_hash);
    event->set_seq(row.seq);
    event->set_count(row.count);
    event->set_op(row.op);
    event->set_datatype(row.datatype);
    event->set_algorithm(row.algorithm);
    event->set_protocol(row.protocol);
    event->set_start_ns(row.start_ns);
    event->set_end_ns(row.end_ns);
    event->set_scope_path(paths.Of(row.node_id));
    if (row.launch_correlation_id == 0) continue;
    const auto kernel = kernels.find({row.process_id, row.launch_correlation_id});
    if (kernel == kernels.end()) continue;
    v1::CollectiveKernel* gpu = event->mutable_kernel();
    gpu->set_device_id(kernel->second->device_id);
    gpu->set_start_ns(kernel->second->start_ns);
    gpu->set_end_ns(kernel->second->end_ns);
  }
  return collectives;
}

}  // namespace protond::query
