// Fuzzes the daemon's whole read path over a hostile region: the input becomes the contents of a
// sealed memfd of a small fixed geometry (header, lane headers and lane data, all attacker
// controlled), and every lane is copied out, decoded and folded into a call tree the way the
// ingest cycle does. The reader must terminate, never read out of bounds, and keep going.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "daemon/aggregate/call_tree.h"
#include "daemon/ingest/process_decoder.h"
#include "daemon/ingest/ring_reader.h"
#include "shim/ring/ring_writer.h"

namespace {

constexpr protond::ring::RegionGeometry kGeometry{4, protond::ring::kMinLaneDataBytes};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto region = protond::ring::WritableRegion::Create(kGeometry);
  if (!region.ok()) __builtin_trap();
  if (size == 0) return 0;
  // The first byte chooses: keep the valid header (most of the time, so that the fuzzer reaches
  // the lanes) or overwrite it too. The rest overwrites the region from there on.
  const bool keep_header = data[0] % 8 != 0;
  auto* base = static_cast<uint8_t*>(region->base());
  const size_t offset = keep_header ? sizeof(protond::ring::RegionHeader) : 0;
  const size_t copied = std::min<size_t>(size - 1, region->bytes() - offset);
  std::memcpy(base + offset, data + 1, copied);
  auto reader = protond::ring::RegionReader::Attach(dup(region->fd()), region->bytes());
  if (!reader.ok()) return 0;
  protond::aggregate::CallTree tree(1);
  uint64_t records = 0;
  std::vector<std::string> problems;
  protond::ingest::SessionSink sink{&tree, &records, &problems};
  protond::ingest::ProcessDecoder decoder(1);
  std::vector<uint8_t> bytes;
  for (uint32_t lane = 0; lane < reader->lane_count(); ++lane) {
    protond::ingest::LaneCursor cursor;
    bytes.clear();
    if (!reader->CopyLane(lane, cursor.read_pos, bytes).ok()) continue;
    if (bytes.size() > kGeometry.lane_data_bytes) __builtin_trap();
    (void)decoder.DecodeLane(cursor, bytes,
                             [&](uint64_t session) { return session % 2 == 1 ? &sink : nullptr; });
  }
  protond::store::Batch batch;
  tree.TakeChangedRows(batch);
  decoder.TakeChangedRows(batch);
  return 0;
}
