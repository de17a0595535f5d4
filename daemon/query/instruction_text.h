// The SASS text of PC-sampled instructions, for `protonctl tree -f sass`: each instruction node
// ("0x0170") is renamed "0x0170  LDG.E R4, desc[UR4][R2.64]" from its cubin (NodeRow.cubin_crc,
// stored as the shim sent it) through nvdisasm. nvdisasm is slow on large cubins, so a query
// works in three steps: Missing (under the caller's lock, which also guards the store the
// cubins come from), Learn (no lock held: it runs nvdisasm) and Name. What is learnt is kept for
// later queries: a CRC names one cubin for ever. Thread-safe.
#ifndef PROTOND_DAEMON_QUERY_INSTRUCTION_TEXT_H_
#define PROTOND_DAEMON_QUERY_INSTRUCTION_TEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/sass/sass_text.h"
#include "daemon/store/store.h"

namespace protond::query {

// A cubin whose functions' instructions are wanted.
struct CubinWork {
  uint64_t crc = 0;
  std::set<std::string> functions;
  std::optional<std::string> cubin;  // filled in by the caller; nothing when not stored
};

// The function an instruction node's samples were taken in: its line node says it, as the shim
// names lines ("dir/file.py:42@kernel" or "kernel+0x1a0").
std::string SampledFunction(const std::string& line_name);

class InstructionTexts {
 public:
  explicit InstructionTexts(sass::NvdisasmLimits limits = sass::NvdisasmLimits())
      : limits_(limits) {}

  // The cubins and functions that the instruction nodes of `stored` need and that are not known
  // yet (nor known to be unavailable).
  std::vector<CubinWork> Missing(const store::StoredTree& stored) const;

  // Runs nvdisasm (sass::FindNvdisasm) once per cubin, a few at once, and keeps each function's
  // instructions, or why there are none. Without nvdisasm nothing is kept, so that a later query
  // tries again.
  void Learn(const std::vector<CubinWork>& work);

  // Renames the instruction nodes of `stored` whose text is known, and returns, one line per
  // cause, why the others kept only their offset ("3 instructions without text: ...").
  std::vector<std::string> Name(store::StoredTree& stored) const;

 private:
  using Key = std::pair<uint64_t, std::string>;   // cubin CRC, function
  using Texts = std::map<uint64_t, std::string>;  // by offset

  // The instructions of the wanted functions of one cubin, or why there are none.
  std::vector<std::pair<Key, absl::StatusOr<Texts>>> Read(const std::string& nvdisasm,
                                                          const CubinWork& item) const;

  const sass::NvdisasmLimits limits_;
  mutable absl::Mutex mutex_;
  std::map<Key, absl::StatusOr<Texts>> functions_ ABSL_GUARDED_BY(mutex_);
  // Why the last Learn could not run, while it could not.
  std::string missing_nvdisasm_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::query

#endif  // PROTOND_DAEMON_QUERY_INSTRUCTION_TEXT_H_
