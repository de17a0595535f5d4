// Process-wide interning of scope paths (contexts) and of metric and state names. Ids are small,
// dense and stable for the life of the process, so records carry 4-byte ids instead of strings.
// Thread-safe; every call takes a mutex, so callers cache results (see recorder.cc): the hot
// path only comes here the first time a thread sees a (parent, name) pair.
#ifndef PROTOND_SHIM_SCOPES_NAME_TABLE_H_
#define PROTOND_SHIM_SCOPES_NAME_TABLE_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/record/record_format.h"

namespace protond::shim {

// `name` cut to `max_bytes` (record::kMaxNameBytes: the most a record carries), at a UTF-8
// character's start: a character cut in two would make the name invalid UTF-8, which no view
// can show. Every cut of a scope name is this one, so a scope's enter and its exit agree.
std::string_view CutName(std::string_view name, size_t max_bytes = record::kMaxNameBytes);

struct ContextEntry {
  uint32_t parent_id;
  std::string name;    // its address is stable for the life of the table
  uint32_t depth = 0;  // levels below ROOT: ROOT is 0, a scope entered at ROOT 1
  // A launch frame stands for the kernel launched from it (Proton's launch hook): GPU work
  // attributed to it is the node `name` under the parent, and metrics given meanwhile land there.
  bool launch_frame = false;
  size_t uncut_name_bytes = 0;  // the name's size before CutName cut it; 0 when it was not cut
};

struct NameEntry {
  record::NameClass name_class;  // the class (metric type) the name was first given
  std::string name;
  uint32_t vector_count = 0;  // a vector metric's element count, as first given (0: not yet)
};

class NameTable {
 public:
  NameTable();

  // The id of the context `name` under `parent_id`; context 0 is ROOT. A launch frame and a scope
  // of the same name and parent are different contexts.
  uint32_t InternContext(uint32_t parent_id, std::string_view name, bool launch_frame = false);
  // A copy of a context's parent and a pointer to its name (stable).
  ContextEntry* Context(uint32_t context_id);
  // Whether `context_id` names a context (ROOT included).
  bool IsContext(uint32_t context_id);

  // The id of a metric or state name; `*first_class` receives the class it was first given.
  uint32_t InternName(std::string_view name, record::NameClass name_class,
                      record::NameClass* first_class);
  NameEntry* Name(uint32_t name_id);
  // The element count vector metric `name_id` was first given in this process: `count` when this
  // is the first time. One count per name, as Proton's device metrics have.
  uint32_t FirstVectorCount(uint32_t name_id, uint32_t count);

 private:
  std::mutex mutex_;
  std::deque<ContextEntry> contexts_;                      // index = context id
  std::unordered_map<std::string, uint32_t> context_ids_;  // key: parent id bytes + name
  std::deque<NameEntry> names_;                            // index = name id; 0 is unused
  std::unordered_map<std::string, uint32_t> name_ids_;
};

}  // namespace protond::shim

#endif  // PROTOND_SHIM_SCOPES_NAME_TABLE_H_
