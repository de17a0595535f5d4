#include "daemon/query/instruction_text.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace protond::query {
namespace {

// Functions whose instructions are kept; past it, the cache starts again.
constexpr size_t kMaxKeptFunctions = 4096;
constexpr size_t kMaxNvdisasmAtOnce = 4;

constexpr char kNoCubin[] =
    "the shim did not hold their cubin (the module loaded before sampling began, as after "
    "protonctl start --pid)";

// Each instruction node of `stored` (by index in stored.nodes) with its line node's index.
std::vector<std::pair<size_t, size_t>> InstructionsWithLines(const store::StoredTree& stored) {
  absl::flat_hash_map<uint32_t, size_t> index_of;
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < stored.nodes.size(); ++i) {
    const store::NodeRow& row = stored.nodes[i];
    index_of.emplace(row.node_id, i);
    if (row.kind != store::NodeKind::kInstruction) continue;
    auto line = index_of.find(row.parent_id);
    if (line != index_of.end()) out.emplace_back(i, line->second);
  }
  return out;
}

}  // namespace

std::string SampledFunction(const std::string& line_name) {
  if (const size_t at = line_name.rfind('@'); at != std::string::npos) {
    return line_name.substr(at + 1);
  }
  return line_name.substr(0, line_name.rfind('+'));
}

std::vector<CubinWork> InstructionTexts::Missing(const store::StoredTree& stored) const {
  std::map<uint64_t, CubinWork> work;
  absl::MutexLock lock(&mutex_);
  for (const auto& [instruction, line] : InstructionsWithLines(stored)) {
    const uint64_t crc = stored.nodes[instruction].cubin_crc;
    if (crc == 0) continue;
    std::string function = SampledFunction(stored.nodes[line].name);
    if (functions_.contains({crc, function})) continue;
    work[crc].crc = crc;
    work[crc].functions.insert(std::move(function));
  }
  std::vector<CubinWork> out;
  for (auto& [crc, item] : work) out.push_back(std::move(item));
  return out;
}

std::vector<std::pair<InstructionTexts::Key, absl::StatusOr<InstructionTexts::Texts>>>
InstructionTexts::Read(const std::string& nvdisasm, const CubinWork& item) const {
  absl::StatusOr<std::string> listing =
      item.cubin
          ? sass::RunNvdisasm(
                nvdisasm,
                {reinterpret_cast<const uint8_t*>(item.cubin->data()), item.cubin->size()}, limits_)
          : absl::NotFoundError("their cubin never reached protond (a full lane?)");
  std::vector<std::pair<Key, absl::StatusOr<Texts>>> out;
  for (const std::string& function : item.functions) {
    out.emplace_back(Key{item.crc, function},
                     listing.ok() ? sass::ParseNvdisasm(*listing, function) : listing.status());
  }
  return out;
}

void InstructionTexts::Learn(const std::vector<CubinWork>& work) {
  if (work.empty()) return;
  const std::optional<std::string> nvdisasm = sass::FindNvdisasm();
  if (!nvdisasm) {
    absl::MutexLock lock(&mutex_);
    missing_nvdisasm_ =
        "protond found no nvdisasm (set PROTOND_NVDISASM, or put the CUDA toolkit's bin on "
        "protond's PATH)";
    return;
  }
  // nvdisasm spends about half a second starting: a Triton program's many cubins are read a few
  // at a time, each by its own nvdisasm.
  std::vector<std::vector<std::pair<Key, absl::StatusOr<Texts>>>> read(work.size());
  std::atomic<size_t> next{0};
  auto read_some = [&] {
    for (size_t i; (i = next.fetch_add(1)) < work.size();) read[i] = Read(*nvdisasm, work[i]);
  };
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < std::min(work.size(), kMaxNvdisasmAtOnce); ++i) {
    helpers.emplace_back(read_some);
  }
  read_some();
  for (std::thread& helper : helpers) helper.join();
  absl::MutexLock lock(&mutex_);
  missing_nvdisasm_.clear();
  size_t learnt = 0;
  for (const auto& functions : read) learnt += functions.size();
  if (functions_.size() + learnt > kMaxKeptFunctions) functions_.clear();
  for (auto& functions : read) {
    for (auto& [key, texts] : functions) functions_.insert_or_assign(key, std::move(texts));
  }
}

std::vector<std::string> InstructionTexts::Name(store::StoredTree& stored) const {
  std::map<std::string, uint64_t> without_text;  // by cause
  absl::MutexLock lock(&mutex_);
  for (const auto& [instruction, line] : InstructionsWithLines(stored)) {
    store::NodeRow& row = stored.nodes[instruction];
    if (row.cubin_crc == 0) {
      ++without_text[kNoCubin];
      continue;
    }
    auto texts = functions_.find({row.cubin_crc, SampledFunction(stored.nodes[line].name)});
    if (texts == functions_.end()) {
      ++without_text[missing_nvdisasm_.empty() ? "not disassembled" : missing_nvdisasm_];
      continue;
    }
    if (!texts->second.ok()) {
      ++without_text[std::string(texts->second.status().message())];
      continue;
    }
    uint64_t offset = 0;
    auto text =
        absl::SimpleHexAtoi(row.name, &offset) ? texts->second->find(offset) : texts->second->end();
    if (text == texts->second->end()) {
      ++without_text["nvdisasm lists no instruction at their offset"];
      continue;
    }
    absl::StrAppend(&row.name, "  ", text->second);
  }
  std::vector<std::string> notes;
  for (const auto& [cause, count] : without_text) {
    notes.push_back(absl::StrCat(count, count == 1 ? " instruction" : " instructions",
                                 " without SASS text: ", cause));
  }
  return notes;
}

}  // namespace protond::query
