#include "daemon/ingest/ring_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "common/record/record_format.h"
#include "gtest/gtest.h"
#include "shim/ring/ring_writer.h"

namespace protond::ring {
namespace {

constexpr RegionGeometry kSmall{2, kMinLaneDataBytes};

absl::StatusOr<RegionReader> AttachTo(const WritableRegion& region) {
  return RegionReader::Attach(dup(region.fd()), region.bytes());
}

TEST(RingReaderTest, CopiesWhatWasWrittenAcrossTheWrap) {
  auto region = WritableRegion::Create(kSmall);
  ASSERT_TRUE(region.ok());
  auto reader = AttachTo(*region);
  ASSERT_TRUE(reader.ok()) << reader.status();
  LaneWriter writer = region->ClaimLane(1);
  std::vector<uint8_t> filler(kMinLaneDataBytes - 8, 0xee);
  ASSERT_TRUE(writer.TryWrite(filler.data(), filler.size()));
  std::vector<uint8_t> out;
  auto end = reader->CopyLane(0, 0, out);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, filler.size());
  reader->ReleaseLane(0, *end);
  const uint8_t record[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ASSERT_TRUE(writer.TryWrite(record, 16));
  out.clear();
  end = reader->CopyLane(0, filler.size(), out);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(out, std::vector<uint8_t>(record, record + 16));
}

TEST(RingReaderTest, ExitStateIsTheShimsMarkAndAnythingElseIsNotTold) {
  auto region = WritableRegion::Create(kSmall);
  ASSERT_TRUE(region.ok());
  auto reader = AttachTo(*region);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(reader->ExitStateUntrusted(), kExitNotYet);
  region->MarkNormalExit();
  EXPECT_EQ(reader->ExitStateUntrusted(), kExitNormal);
  auto* header = static_cast<RegionHeader*>(region->base());
  header->exit_state.store(0);  // a shim older than the mark
  EXPECT_EQ(reader->ExitStateUntrusted(), kExitNotTold);
  header->exit_state.store(77);
  EXPECT_EQ(reader->ExitStateUntrusted(), kExitNotTold);
}

TEST(RingReaderTest, Malicious_WritePositionBehindReadPosition) {
  auto region = WritableRegion::Create(kSmall);
  auto reader = AttachTo(*region);
  ASSERT_TRUE(reader.ok());
  LaneHeaderAt(region->base(), 0)->write_pos.store(8);
  std::vector<uint8_t> out;
  auto end = reader->CopyLane(0, 16, out);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().message(), "write position 8 is behind the read position 16");
}

TEST(RingReaderTest, Malicious_WritePositionJumpsPastTheCapacity) {
  auto region = WritableRegion::Create(kSmall);
  auto reader = AttachTo(*region);
  LaneHeaderAt(region->base(), 1)->write_pos.store(kMinLaneDataBytes + 8);
  std::vector<uint8_t> out;
  EXPECT_FALSE(reader->CopyLane(1, 0, out).ok());
  EXPECT_TRUE(out.empty());
}

// How full a lane is only decides when to drain: whatever the writer claims, it is between 0
// and the lane's size.
TEST(RingReaderTest, Malicious_PendingBytesStayWithinTheLane) {
  auto region = WritableRegion::Create(kSmall);
  auto reader = AttachTo(*region);
  ASSERT_TRUE(reader.ok());
  LaneHeader* lane = LaneHeaderAt(region->base(), 0);
  lane->write_pos.store(48);
  EXPECT_EQ(reader->PendingBytesUntrusted(0, 16), 32u);
  EXPECT_EQ(reader->PendingBytesUntrusted(0, 64), 0u);  // behind the read position
  lane->write_pos.store(UINT64_MAX);
  EXPECT_EQ(reader->PendingBytesUntrusted(0, 0), kMinLaneDataBytes);
}

TEST(RingReaderTest, Malicious_MisalignedWritePosition) {
  auto region = WritableRegion::Create(kSmall);
  auto reader = AttachTo(*region);
  LaneHeaderAt(region->base(), 0)->write_pos.store(12);
  std::vector<uint8_t> out;
  EXPECT_FALSE(reader->CopyLane(0, 0, out).ok());
}

// Shims of the previous record formats (8: no vector metrics; 7: no TSC timestamps either) are
// still read.
TEST(RingReaderTest, ReadsTheOldestReadableRecordFormat) {
  auto region = WritableRegion::Create(kSmall);
  EXPECT_EQ(record::kOldestReadableRecordFormatVersion, 7u);
  for (const uint32_t older : {7u, 8u}) {
    static_cast<RegionHeader*>(region->base())->record_format_version = older;
    EXPECT_TRUE(AttachTo(*region).ok()) << older;
  }
}

TEST(RingReaderTest, Malicious_WrongMagicOrVersionOrSize) {
  auto region = WritableRegion::Create(kSmall);
  auto* header = static_cast<RegionHeader*>(region->base());
  EXPECT_FALSE(RegionReader::Attach(dup(region->fd()), region->bytes() - 8).ok());
  header->layout_version = 99;
  auto wrong_version = AttachTo(*region);
  ASSERT_FALSE(wrong_version.ok());
  EXPECT_EQ(wrong_version.status().message(),
            "region has layout version 99 and record format version 11; this daemon reads 1 and 7 "
            "to 11");
  header->layout_version = kRegionLayoutVersion;
  for (const uint32_t unreadable : {6u, 12u}) {
    header->record_format_version = unreadable;
    auto refused = AttachTo(*region);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().message(), "region has layout version 1 and record format version " +
                                              std::to_string(unreadable) +
                                              "; this daemon reads 1 and 7 to 11");
  }
  header->record_format_version = record::kRecordFormatVersion;
  header->magic = 0;
  EXPECT_FALSE(AttachTo(*region).ok());
  header->magic = kRegionMagic;
  header->lane_count = 3;  // geometry no longer matches the file size
  EXPECT_FALSE(AttachTo(*region).ok());
}

// A valid region (WritableRegion's bytes) in a memfd of its own with only `seals` added: only
// F_SEAL_SHRINK and F_SEAL_GROW together keep a writer from cutting the mapping under the reader
// (SIGBUS) or growing it.
absl::StatusOr<RegionReader> AttachSealedWith(int seals) {
  absl::StatusOr<WritableRegion> region = WritableRegion::Create(kSmall);
  if (!region.ok()) return region.status();
  const int fd = memfd_create("partly-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return absl::ErrnoToStatus(errno, "memfd_create");
  const bool made =
      write(fd, region->base(), region->bytes()) == static_cast<ssize_t>(region->bytes()) &&
      (seals == 0 || fcntl(fd, F_ADD_SEALS, seals) == 0);
  if (!made) {
    close(fd);
    return absl::InternalError("cannot copy the region into a memfd and seal it");
  }
  return RegionReader::Attach(fd, region->bytes());
}

TEST(RingReaderTest, Malicious_UnsealedRegionIsRefused) {
  const std::string refused =
      "region is not sealed against shrinking and growing (F_SEAL_SHRINK|F_SEAL_GROW)";
  for (const int seals : {0, F_SEAL_GROW, F_SEAL_SHRINK, F_SEAL_WRITE | F_SEAL_SEAL}) {
    const auto reader = AttachSealedWith(seals);
    ASSERT_FALSE(reader.ok()) << "seals " << seals;
    EXPECT_EQ(reader.status().message(), refused) << "seals " << seals;
  }
  // The same region sealed against both is read: it is the seals that were refused.
  EXPECT_TRUE(AttachSealedWith(F_SEAL_SHRINK | F_SEAL_GROW).ok());
}

}  // namespace
}  // namespace protond::ring
