#include "shim/scopes/name_table.h"

#include <cstring>

namespace protond::shim {

NameTable::NameTable() {
  contexts_.push_back({record::kRootContextId, "ROOT"});
  names_.push_back({record::NameClass::kState, ""});
}

uint32_t NameTable::InternContext(uint32_t parent_id, std::string_view name, bool launch_frame) {
  std::string key(sizeof(parent_id), '\0');
  std::memcpy(key.data(), &parent_id, sizeof(parent_id));
  key.push_back(launch_frame ? 'l' : 's');
  key.append(name.substr(0, record::kMaxNameBytes));
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = context_ids_.try_emplace(std::move(key), contexts_.size());
  if (inserted) {
    contexts_.push_back(
        {parent_id, std::string(name.substr(0, record::kMaxNameBytes)), launch_frame});
  }
  return it->second;
}

ContextEntry* NameTable::Context(uint32_t context_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  return &contexts_[context_id];
}

uint32_t NameTable::InternName(std::string_view name, record::NameClass name_class,
                               record::NameClass* first_class) {
  // States, kernels and metrics are separate namespaces; the two metric types share one, so that
  // a type change is caught.
  const char space = name_class == record::NameClass::kState    ? 's'
                     : name_class == record::NameClass::kKernel ? 'k'
                                                                : 'm';
  std::string key = space + std::string(name.substr(0, record::kMaxNameBytes));
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = name_ids_.try_emplace(key, names_.size());
  if (inserted) names_.push_back({name_class, key.substr(1)});
  *first_class = names_[it->second].name_class;
  return it->second;
}

bool NameTable::IsContext(uint32_t context_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  return context_id < contexts_.size();
}

NameEntry* NameTable::Name(uint32_t name_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  return &names_[name_id];
}

}  // namespace protond::shim
