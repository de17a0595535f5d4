#include "daemon/attach/internal/elf_symbols.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace protond::attach {
namespace {

// Far above what real objects have (libc.so.6: 14 program headers, 36 dynamic entries, hash
// chains of a few symbols), so that only a corrupt table reaches them.
constexpr uint16_t kMaxProgramHeaders = 256;
constexpr uint64_t kMaxDynamicEntries = 1024;
constexpr uint32_t kMaxChainSteps = 1 << 16;
constexpr uint64_t kPageMask = ~uint64_t{4095};

// base + index * size, or nullopt where that wraps around.
std::optional<uint64_t> ElementAddress(uint64_t base, uint64_t index, uint64_t size) {
  uint64_t offset = 0;
  uint64_t address = 0;
  if (__builtin_mul_overflow(index, size, &offset) ||
      __builtin_add_overflow(base, offset, &address)) {
    return std::nullopt;
  }
  return address;
}

template <typename T>
bool ReadElement(ReadBytes read, uint64_t base, uint64_t index, T* value) {
  const std::optional<uint64_t> address = ElementAddress(base, index, sizeof(T));
  return address.has_value() && read(*address, value, sizeof(T));
}

absl::Status Unreadable(absl::string_view what, uint64_t address) {
  return absl::FailedPreconditionError(
      absl::StrCat("cannot read the ", what, " at 0x", absl::Hex(address)));
}

// glibc rewrites the dynamic section's pointers to addresses when it relocates an object on
// x86-64; a loader that leaves them (or an object not relocated yet) has offsets, all of them
// below the load bias.
uint64_t Absolute(uint64_t pointer_untrusted, uint64_t load_bias) {
  return pointer_untrusted < load_bias ? pointer_untrusted + load_bias : pointer_untrusted;
}

absl::StatusOr<Elf64_Ehdr> ReadElfHeader(ReadBytes read, uint64_t load_base) {
  Elf64_Ehdr header;
  if (!read(load_base, &header, sizeof(header))) return Unreadable("ELF header", load_base);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return absl::FailedPreconditionError(
        absl::StrCat("no 64-bit little-endian ELF header at 0x", absl::Hex(load_base)));
  }
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      header.e_phnum > kMaxProgramHeaders) {
    return absl::FailedPreconditionError(absl::StrCat("ELF header at 0x", absl::Hex(load_base),
                                                      ": ", header.e_phnum, " program headers of ",
                                                      header.e_phentsize, " bytes"));
  }
  return header;
}

// The load bias and the PT_DYNAMIC segment's address and entry count.
struct Segments {
  uint64_t load_bias = 0;
  uint64_t dynamic = 0;
  uint64_t dynamic_entries = 0;
};

absl::StatusOr<Segments> ReadSegments(ReadBytes read, uint64_t load_base) {
  absl::StatusOr<Elf64_Ehdr> header = ReadElfHeader(read, load_base);
  if (!header.ok()) return header.status();
  const std::optional<uint64_t> table = ElementAddress(load_base, header->e_phoff, 1);
  std::optional<uint64_t> first_load_page;
  std::optional<Elf64_Phdr> dynamic;
  for (uint16_t i = 0; i < header->e_phnum; ++i) {
    Elf64_Phdr phdr;
    if (!table.has_value() || !ReadElement(read, *table, i, &phdr)) {
      return Unreadable("program headers", table.value_or(0));
    }
    // PT_LOAD entries are sorted by address (ELF spec): the first maps file offset 0.
    if (phdr.p_type == PT_LOAD && !first_load_page.has_value()) {
      first_load_page = phdr.p_vaddr & kPageMask;
    }
    if (phdr.p_type == PT_DYNAMIC) dynamic = phdr;
  }
  if (!first_load_page.has_value() || !dynamic.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat("the object at 0x", absl::Hex(load_base),
                                                      " has no PT_LOAD or no PT_DYNAMIC segment"));
  }
  Segments segments;
  segments.load_bias = load_base - *first_load_page;  // wraps only for a corrupt header
  segments.dynamic = segments.load_bias + dynamic->p_vaddr;
  segments.dynamic_entries = std::min(dynamic->p_memsz / sizeof(Elf64_Dyn), kMaxDynamicEntries);
  return segments;
}

// Takes one dynamic entry's table into `tables`.
absl::Status TakeDynamicEntry(const Elf64_Dyn& entry, DynamicTables* tables) {
  const uint64_t value = entry.d_un.d_val;
  switch (entry.d_tag) {
    case DT_SYMTAB:
      tables->symtab = Absolute(value, tables->load_bias);
      break;
    case DT_STRTAB:
      tables->strtab = Absolute(value, tables->load_bias);
      break;
    case DT_STRSZ:
      tables->strtab_bytes = value;
      break;
    case DT_GNU_HASH:
      tables->gnu_hash = Absolute(value, tables->load_bias);
      break;
    case DT_HASH:
      tables->sysv_hash = Absolute(value, tables->load_bias);
      break;
    case DT_VERSYM:
      tables->versym = Absolute(value, tables->load_bias);
      break;
    case DT_SYMENT:
      if (value != sizeof(Elf64_Sym)) {
        return absl::FailedPreconditionError(absl::StrCat("symbols of ", value, " bytes"));
      }
      break;
  }
  return absl::OkStatus();
}

// The hash functions of the two table kinds (the gABI's and GNU's; ld.so computes the same).
uint32_t GnuHash(absl::string_view name) {
  uint32_t hash = 5381;
  for (const unsigned char c : name) hash = hash * 33 + c;
  return hash;
}

uint32_t SysvHash(absl::string_view name) {
  uint32_t hash = 0;
  for (const unsigned char c : name) {
    hash = (hash << 4) + c;
    const uint32_t high = hash & 0xf0000000;
    hash ^= high >> 24;
    hash &= ~high;
  }
  return hash;
}

constexpr uint16_t kVersymHidden = 0x8000;  // a version other than the default

// A lookup step's answer: an error when a table cannot be read, nullopt when this is not it.
using Found = absl::StatusOr<std::optional<uint64_t>>;

// The address of symbol `index` when it is the default version of the defined function `name`.
Found MatchSymbol(ReadBytes read, const DynamicTables& tables, uint64_t index,
                  absl::string_view name) {
  Elf64_Sym symbol;
  if (!ReadElement(read, tables.symtab, index, &symbol)) {
    return Unreadable("symbol table", tables.symtab);
  }
  // The name and its terminating NUL must lie inside DT_STRSZ.
  if (symbol.st_name >= tables.strtab_bytes ||
      tables.strtab_bytes - symbol.st_name <= name.size()) {
    return std::nullopt;
  }
  std::string stored(name.size() + 1, '\0');
  const std::optional<uint64_t> at = ElementAddress(tables.strtab, symbol.st_name, 1);
  if (!at.has_value() || !read(*at, stored.data(), stored.size())) {
    return Unreadable("string table", tables.strtab);
  }
  if (absl::string_view(stored).substr(0, name.size()) != name || stored.back() != '\0') {
    return std::nullopt;
  }
  if (symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0 ||
      ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || ELF64_ST_BIND(symbol.st_info) == STB_LOCAL) {
    return std::nullopt;
  }
  if (tables.versym != 0) {
    uint16_t version = 0;
    if (!ReadElement(read, tables.versym, index, &version)) {
      return Unreadable("version table", tables.versym);
    }
    if ((version & kVersymHidden) != 0) return std::nullopt;
  }
  return tables.load_bias + symbol.st_value;
}

// DT_GNU_HASH: a header, a Bloom filter (not needed to find a symbol, skipped), buckets holding
// the first symbol of each chain, and one hash word per symbol whose low bit ends its chain.
Found LookUpGnu(ReadBytes read, const DynamicTables& tables, absl::string_view name) {
  struct {
    uint32_t buckets, first_symbol, bloom_words, bloom_shift;
  } header;
  if (!read(tables.gnu_hash, &header, sizeof(header))) {
    return Unreadable("GNU hash table", tables.gnu_hash);
  }
  if (header.buckets == 0) return std::nullopt;
  const uint32_t hash = GnuHash(name);
  const std::optional<uint64_t> buckets =
      ElementAddress(tables.gnu_hash, 4 + uint64_t{2} * header.bloom_words, sizeof(uint32_t));
  const std::optional<uint64_t> chains =
      buckets.has_value() ? ElementAddress(*buckets, header.buckets, sizeof(uint32_t))
                          : std::nullopt;
  uint32_t first = 0;
  if (!chains.has_value() || !ReadElement(read, *buckets, hash % header.buckets, &first)) {
    return Unreadable("GNU hash buckets", tables.gnu_hash);
  }
  if (first < header.first_symbol) return std::nullopt;  // an empty bucket
  uint64_t index = first;
  for (uint32_t step = 0; step < kMaxChainSteps; ++step, ++index) {
    uint32_t chain_hash = 0;
    if (!ReadElement(read, *chains, index - header.first_symbol, &chain_hash)) {
      return Unreadable("GNU hash chain", *chains);
    }
    if ((chain_hash | 1) == (hash | 1)) {
      ASSIGN_OR_RETURN(const std::optional<uint64_t> address,
                       MatchSymbol(read, tables, index, name));
      if (address.has_value()) return address;
    }
    if ((chain_hash & 1) != 0) return std::nullopt;
  }
  return absl::FailedPreconditionError("a GNU hash chain without end");
}

// DT_HASH: nbucket, nchain, the buckets, then one chain link per symbol; 0 ends a chain.
Found LookUpSysv(ReadBytes read, const DynamicTables& tables, absl::string_view name) {
  struct {
    uint32_t buckets, chains;
  } header;
  if (!read(tables.sysv_hash, &header, sizeof(header))) {
    return Unreadable("hash table", tables.sysv_hash);
  }
  if (header.buckets == 0) return std::nullopt;
  const std::optional<uint64_t> buckets = ElementAddress(tables.sysv_hash, 2, sizeof(uint32_t));
  const std::optional<uint64_t> chains =
      buckets.has_value() ? ElementAddress(*buckets, header.buckets, sizeof(uint32_t))
                          : std::nullopt;
  uint32_t index = 0;
  if (!chains.has_value() ||
      !ReadElement(read, *buckets, SysvHash(name) % header.buckets, &index)) {
    return Unreadable("hash buckets", tables.sysv_hash);
  }
  for (uint32_t step = 0; index != STN_UNDEF; ++step) {
    if (index >= header.chains || step == kMaxChainSteps) {
      return absl::FailedPreconditionError(
          absl::StrCat("a hash chain that reaches symbol ", index, " of ", header.chains));
    }
    ASSIGN_OR_RETURN(const std::optional<uint64_t> address, MatchSymbol(read, tables, index, name));
    if (address.has_value()) return address;
    if (!ReadElement(read, *chains, index, &index)) return Unreadable("hash chain", *chains);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<DynamicTables> ReadDynamicTables(ReadBytes read, uint64_t load_base) {
  absl::StatusOr<Segments> segments = ReadSegments(read, load_base);
  if (!segments.ok()) return segments.status();
  DynamicTables tables;
  tables.load_bias = segments->load_bias;
  for (uint64_t i = 0; i < segments->dynamic_entries; ++i) {
    Elf64_Dyn entry;
    if (!ReadElement(read, segments->dynamic, i, &entry)) {
      return Unreadable("dynamic section", segments->dynamic);
    }
    if (entry.d_tag == DT_NULL) break;
    RETURN_IF_ERROR(TakeDynamicEntry(entry, &tables));
  }
  if (tables.symtab == 0 || tables.strtab == 0 || (tables.gnu_hash == 0 && tables.sysv_hash == 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the object at 0x", absl::Hex(load_base), " lacks DT_SYMTAB, DT_STRTAB or a hash table"));
  }
  return tables;
}

absl::StatusOr<uint64_t> FindFunction(ReadBytes read, const DynamicTables& tables,
                                      absl::string_view name) {
  ASSIGN_OR_RETURN(const std::optional<uint64_t> address, tables.gnu_hash != 0
                                                              ? LookUpGnu(read, tables, name)
                                                              : LookUpSysv(read, tables, name));
  if (!address.has_value()) {
    return absl::NotFoundError(absl::StrCat("no function ", name, " among the dynamic symbols"));
  }
  return *address;
}

}  // namespace protond::attach
