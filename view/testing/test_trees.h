// Test-only: building the v1::Tree answers that renderers of a session's tree read.
#ifndef PROTOND_VIEW_TESTING_TEST_TREES_H_
#define PROTOND_VIEW_TESTING_TEST_TREES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "protond.pb.h"

namespace protond::testing {

inline v1::TreeNode* AddNode(v1::Tree* tree, uint32_t id, uint32_t parent_id,
                             const std::string& name, uint64_t count = 0) {
  v1::TreeNode* node = tree->add_nodes();
  node->set_id(id);
  node->set_parent_id(parent_id);
  node->set_name(name);
  node->set_count(count);
  return node;
}

inline void AddInt(v1::TreeNode* node, const std::string& name, v1::Metric::Aggregation aggregation,
                   int64_t value) {
  v1::Metric* metric = node->add_metrics();
  metric->set_name(name);
  metric->set_aggregation(aggregation);
  metric->set_int_value(value);
}

inline void AddDouble(v1::TreeNode* node, const std::string& name, double value) {
  v1::Metric* metric = node->add_metrics();
  metric->set_name(name);
  metric->set_aggregation(v1::Metric::INCLUSIVE);
  metric->set_double_value(value);
}

// An inclusive vector metric of int64 elements.
inline void AddIntVector(v1::TreeNode* node, const std::string& name,
                         const std::vector<int64_t>& values) {
  v1::Metric* metric = node->add_metrics();
  metric->set_name(name);
  metric->set_aggregation(v1::Metric::INCLUSIVE);
  for (int64_t value : values) metric->mutable_int_vector()->add_values(value);
}

inline void AddDoubleVector(v1::TreeNode* node, const std::string& name,
                            const std::vector<double>& values) {
  v1::Metric* metric = node->add_metrics();
  metric->set_name(name);
  metric->set_aggregation(v1::Metric::INCLUSIVE);
  for (double value : values) metric->mutable_double_vector()->add_values(value);
}

}  // namespace protond::testing

#endif  // PROTOND_VIEW_TESTING_TEST_TREES_H_
