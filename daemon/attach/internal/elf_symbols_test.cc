#include "daemon/attach/internal/elf_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace protond::attach {
namespace {

// This process's own memory, read as the loader reads a target's: through /proc/PID/mem, where
// an unmapped address is a failed read, not a crash.
class OwnMemory {
 public:
  OwnMemory() : fd_(open("/proc/self/mem", O_RDONLY | O_CLOEXEC)) {}
  ~OwnMemory() { close(fd_); }
  bool Read(uint64_t address, void* out, size_t size) const {
    return pread64(fd_, out, size, static_cast<off64_t>(address)) == static_cast<ssize_t>(size);
  }

 private:
  int fd_;
};

// Where libc.so.6's ELF header is mapped in this process.
uint64_t OwnLibcBase() {
  uint64_t base = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (strstr(info->dlpi_name, "/libc.so.6") == nullptr) return 0;
        *static_cast<uint64_t*>(data) = info->dlpi_addr;  // its first PT_LOAD is at 0
        return 1;
      },
      &base);
  return base;
}

// What the dynamic linker says: libc's own definition, its default version.
uint64_t DlsymInLibc(const char* name) {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  const uint64_t address = reinterpret_cast<uint64_t>(dlsym(libc, name));
  dlclose(libc);
  return address;
}

class ElfSymbolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(libc_base_, 0u);
    absl::StatusOr<DynamicTables> tables = ReadDynamicTables(read_, libc_base_);
    ASSERT_TRUE(tables.ok()) << tables.status();
    tables_ = *tables;
  }

  OwnMemory memory_;
  const uint64_t libc_base_ = OwnLibcBase();
  const std::function<bool(uint64_t, void*, size_t)> read_ =
      [this](uint64_t address, void* out, size_t size) { return memory_.Read(address, out, size); };
  DynamicTables tables_;
};

constexpr const char* kLoaderFunctions[] = {"dlopen",           "dlsym", "dlerror",
                                            "__errno_location", "mmap",  "munmap"};

TEST_F(ElfSymbolsTest, FindsWhatDlsymFindsInTheOwnLibc) {
  EXPECT_EQ(tables_.load_bias, libc_base_);
  EXPECT_NE(tables_.gnu_hash, 0u);
  for (const char* name : kLoaderFunctions) {
    absl::StatusOr<uint64_t> address = FindFunction(read_, tables_, name);
    ASSERT_TRUE(address.ok()) << name << ": " << address.status();
    EXPECT_EQ(*address, DlsymInLibc(name)) << name;
  }
}

TEST_F(ElfSymbolsTest, TheSysvHashTableFindsTheSame) {
  ASSERT_NE(tables_.sysv_hash, 0u);  // Debian's libc.so.6 has both tables
  DynamicTables sysv_only = tables_;
  sysv_only.gnu_hash = 0;
  for (const char* name : kLoaderFunctions) {
    absl::StatusOr<uint64_t> address = FindFunction(read_, sysv_only, name);
    ASSERT_TRUE(address.ok()) << name << ": " << address.status();
    EXPECT_EQ(*address, DlsymInLibc(name)) << name;
  }
}

TEST_F(ElfSymbolsTest, SkipsCompatVersionsIfuncsDataAndAbsentNames) {
  // memcpy@@GLIBC_2.14 is an IFUNC (its value is a resolver); memcpy@GLIBC_2.2.5, a plain
  // function, is a compat version no program links to today.
  for (const char* name : {"memcpy", "stdout", "environ", "no_such_function", ""}) {
    absl::StatusOr<uint64_t> address = FindFunction(read_, tables_, name);
    EXPECT_EQ(address.status().code(), absl::StatusCode::kNotFound) << name;
  }
}

// The fuzzer's seeds: a small library's memory image at kImageBase, its dynamic section not
// relocated (offsets, as in the file).
constexpr uint64_t kImageBase = 0x10000;

std::vector<char> ReadSeed(const std::string& name) {
  std::ifstream in(std::string(PROTOND_ELF_SYMBOLS_CORPUS) + "/" + name, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ElfSymbolsSeedTest, FindsTheDefaultVersionsWithEitherHashTable) {
  // The values readelf --dyn-syms shows for dlopen@@SEED_2 and mmap@@SEED_2 (mmap@SEED_1, a
  // compat version, lies 0x20 above).
  struct Seed {
    const char* name;
    uint64_t dlopen;
    uint64_t mmap;
  };
  for (const Seed& seed :
       {Seed{"seed_both_hash", 0x460, 0x4a0}, Seed{"seed_gnu_hash", 0x420, 0x460},
        Seed{"seed_sysv_hash", 0x410, 0x450}}) {
    SCOPED_TRACE(seed.name);
    const std::vector<char> image = ReadSeed(seed.name);
    ASSERT_FALSE(image.empty());
    const auto read = [&image](uint64_t address, void* out, size_t size) {
      if (address < kImageBase || address - kImageBase > image.size() ||
          size > image.size() - (address - kImageBase)) {
        return false;
      }
      memcpy(out, image.data() + (address - kImageBase), size);
      return true;
    };
    absl::StatusOr<DynamicTables> tables = ReadDynamicTables(read, kImageBase);
    ASSERT_TRUE(tables.ok()) << tables.status();
    EXPECT_EQ(FindFunction(read, *tables, "dlopen").value_or(0), kImageBase + seed.dlopen);
    EXPECT_EQ(FindFunction(read, *tables, "mmap").value_or(0), kImageBase + seed.mmap);
    EXPECT_EQ(FindFunction(read, *tables, "data_object").status().code(),
              absl::StatusCode::kNotFound);
  }
}

TEST(ElfSymbolsBadInputTest, RefusesMemoryThatIsNoElfObject) {
  std::vector<uint8_t> zeros(4096);
  const auto read = [&zeros](uint64_t address, void* out, size_t size) {
    if (address > zeros.size() || size > zeros.size() - address) return false;
    memcpy(out, zeros.data() + address, size);
    return true;
  };
  EXPECT_EQ(ReadDynamicTables(read, 0).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ReadDynamicTables(read, 1 << 20).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ElfSymbolsBadInputTest, AHashTableOutsideMemoryIsAnErrorNotACrash) {
  DynamicTables tables;
  tables.symtab = 1;
  tables.strtab = 1;
  tables.gnu_hash = ~uint64_t{0} - 4;
  const auto nothing = [](uint64_t, void*, size_t) { return false; };
  EXPECT_EQ(FindFunction(nothing, tables, "dlopen").status().code(),
            absl::StatusCode::kFailedPrecondition);
  tables.gnu_hash = 0;
  tables.sysv_hash = ~uint64_t{0};
  EXPECT_EQ(FindFunction(nothing, tables, "dlopen").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace protond::attach
