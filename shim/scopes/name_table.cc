#include "shim/scopes/name_table.h"

#include <cstring>

namespace protond::shim {

std::string_view CutName(std::string_view name, size_t max_bytes) {
  if (name.size() <= max_bytes) return name;
  size_t cut = max_bytes;
  // A UTF-8 character has at most 3 continuation bytes (10xxxxxx); past that the name is not
  // UTF-8 anyway and is cut where the limit falls.
  for (int back = 0; back < 3 && cut > 0 && (name[cut] & 0xc0) == 0x80; ++back) --cut;
  return name.substr(0, cut);
}

NameTable::NameTable() {
  contexts_.push_back({record::kRootContextId, "ROOT", 0});
  names_.push_back({record::NameClass::kState, ""});
}

uint32_t NameTable::InternContext(uint32_t parent_id, std::string_view name, bool launch_frame) {
  std::string key(sizeof(parent_id), '\0');
  std::memcpy(key.data(), &parent_id, sizeof(parent_id));
  key.push_back(launch_frame ? 'l' : 's');
  const std::string_view cut = CutName(name);
  key.append(cut);
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = context_ids_.try_emplace(std::move(key), contexts_.size());
  if (inserted) {
    contexts_.push_back({parent_id, std::string(cut), contexts_[parent_id].depth + 1, launch_frame,
                         cut.size() < name.size() ? name.size() : 0});
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
  std::string key = space + std::string(CutName(name));
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

uint32_t NameTable::FirstVectorCount(uint32_t name_id, uint32_t count) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t& first = names_[name_id].vector_count;
  if (first == 0) first = count;
  return first;
}

}  // namespace protond::shim
