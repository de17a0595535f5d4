// Test-only: a gzipped pprof profile (view/export/pprof) read back as pprof reads it. The tests
// that include it link protond_view_export_pprof (profile.pb.h) and ZLIB::ZLIB.
#ifndef PROTOND_VIEW_TESTING_TEST_PPROF_H_
#define PROTOND_VIEW_TESTING_TEST_PPROF_H_

#include <zlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "profile.pb.h"

namespace protond::testing {

inline std::string Gunzip(const std::string& gzipped) {
  z_stream stream = {};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);  // gzip only, not a bare zlib stream
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzipped.data()));
  stream.avail_in = gzipped.size();
  std::string out;
  char buffer[1 << 16];
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - stream.avail_out);
  }
  EXPECT_EQ(result, Z_STREAM_END);
  inflateEnd(&stream);
  return out;
}

// The profile in a .pb.gz file's bytes; a failure of the test when they are not one.
inline perftools::profiles::Profile ParsePprof(const std::string& gzipped) {
  perftools::profiles::Profile profile;
  EXPECT_TRUE(profile.ParseFromString(Gunzip(gzipped)));
  return profile;
}

// The profile's comments as text.
inline std::vector<std::string> PprofComments(const perftools::profiles::Profile& profile) {
  std::vector<std::string> comments;
  for (int64_t index : profile.comment()) comments.push_back(profile.string_table(index));
  return comments;
}

}  // namespace protond::testing

#endif  // PROTOND_VIEW_TESTING_TEST_PPROF_H_
