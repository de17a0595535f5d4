#include "view/export/pprof/pprof.h"

#include <zlib.h>

#include <climits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/status/status_macros.h"
#include "common/text/utf8.h"
#include "view/export/pprof/sample_columns.h"
#include "view/render/tree_shape.h"
#include "view/tree/frame_filter.h"
#include "view/tree/frame_names.h"

namespace protond::view {
namespace {

namespace pprof = perftools::profiles;

constexpr uint64_t kMappingId = 1;

// `text` with each byte that is not part of well-formed UTF-8 replaced by U+FFFD: protobuf's
// string fields must be UTF-8, and a parser may refuse the whole profile otherwise.
std::string ValidUtf8(absl::string_view text) {
  if (text::FindInvalidUtf8(text) == absl::string_view::npos) return std::string(text);
  std::string valid;
  while (!text.empty()) {
    uint32_t code_point;
    size_t length = text::DecodeUtf8(text, &code_point);
    if (length == 0) {
      valid += "\xef\xbf\xbd";
      length = 1;
    } else {
      valid.append(text.data(), length);
    }
    text.remove_prefix(length);
  }
  return valid;
}

// The profile's string_table: each string once, "" at index 0 as the format requires.
class StringTable {
 public:
  explicit StringTable(pprof::Profile* profile) : profile_(profile) { Index(""); }

  int64_t Index(absl::string_view text) {
    std::string valid = ValidUtf8(text);
    const auto [it, inserted] = index_.try_emplace(std::move(valid), profile_->string_table_size());
    if (inserted) profile_->add_string_table(it->first);
    return it->second;
  }

 private:
  pprof::Profile* profile_;
  absl::flat_hash_map<std::string, int64_t> index_;
};

// One function and one location, both of id `index + 1`, per distinct frame name as stored.
std::vector<uint64_t> AddFunctions(const v1::Tree& tree, StringTable& strings,
                                   pprof::Profile* profile) {
  absl::flat_hash_map<std::string, uint64_t> ids;
  std::vector<uint64_t> location_of(tree.nodes_size());
  for (int i = 0; i < tree.nodes_size(); ++i) {
    const std::string& name = tree.nodes(i).name();
    const auto [it, inserted] = ids.try_emplace(name, profile->function_size() + 1);
    location_of[i] = it->second;
    if (!inserted) continue;
    pprof::Function* function = profile->add_function();
    function->set_id(it->second);
    function->set_name(strings.Index(KernelName(name, KernelNames::kFull)));
    function->set_system_name(strings.Index(name));
    pprof::Location* location = profile->add_location();
    location->set_id(it->second);
    location->set_mapping_id(kMappingId);
    location->add_line()->set_function_id(it->second);
  }
  return location_of;
}

void AddSamples(const TreeShape& shape, const std::vector<uint64_t>& location_of,
                const std::vector<SampleColumn>& columns, pprof::Profile* profile) {
  for (size_t i = 0; i < location_of.size(); ++i) {
    pprof::Sample* sample = profile->add_sample();
    for (int node = static_cast<int>(i); node >= 0; node = shape.parent[node]) {
      sample->add_location_id(location_of[node]);  // leaf first
    }
    for (const SampleColumn& column : columns) sample->add_value(column.self[i]);
  }
}

void AddOrigin(const PprofOrigin& origin, const v1::Tree& tree,
               const std::vector<std::string>& left_out, StringTable& strings,
               pprof::Profile* profile) {
  profile->add_comment(strings.Index(absl::StrCat("protond: ", origin.description)));
  if (origin.start_time_unix_ns > 0) {
    profile->set_time_nanos(origin.start_time_unix_ns);
    const absl::Time start = absl::FromUnixNanos(origin.start_time_unix_ns);
    profile->add_comment(strings.Index(absl::StrCat(
        "started ", absl::FormatTime(absl::RFC3339_full, start, absl::UTCTimeZone()))));
  }
  if (origin.start_time_unix_ns > 0 && origin.end_time_unix_ns >= origin.start_time_unix_ns) {
    profile->set_duration_nanos(origin.end_time_unix_ns - origin.start_time_unix_ns);
    const absl::Time end = absl::FromUnixNanos(origin.end_time_unix_ns);
    profile->add_comment(strings.Index(
        absl::StrCat("stopped ", absl::FormatTime(absl::RFC3339_full, end, absl::UTCTimeZone()))));
  } else if (origin.start_time_unix_ns > 0) {
    profile->add_comment(strings.Index("still running when exported"));
  }
  if (!left_out.empty()) {
    profile->add_comment(strings.Index(
        absl::StrCat("left out, properties and vector metrics are not summed numbers: ",
                     absl::StrJoin(left_out, ", "))));
  }
  for (const std::string& note : tree.notes()) profile->add_comment(strings.Index(note));
}

// The type pprof shows first: GPU time where there is some, else the scopes' time, else count.
void SetDefaultSampleType(const std::vector<SampleColumn>& columns, StringTable& strings,
                          pprof::Profile* profile) {
  std::string chosen = "count";
  for (const SampleColumn& column : columns) {
    if (column.type == "gpu_time") chosen = column.type;
    if (column.type == "cpu_time" && chosen == "count") chosen = column.type;
  }
  profile->set_default_sample_type(strings.Index(chosen));
}

absl::StatusOr<std::string> Gzip(const std::string& bytes) {
  z_stream stream = {};
  // 15 + 16: a deflate stream with the largest window, in a gzip header and trailer.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::InternalError("zlib could not start a gzip stream");
  }
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());  // at most INT_MAX: protobuf's limit
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) {
    return absl::InternalError(absl::StrCat("zlib could not gzip the profile (", result, ")"));
  }
  return out;
}

}  // namespace

absl::StatusOr<pprof::Profile> BuildPprofProfile(const v1::Tree& profile_tree,
                                                 const PprofOrigin& origin) {
  ASSIGN_OR_RETURN(const TreeShape profile_shape, CheckTreeShape(profile_tree));
  const v1::Tree tree = DropHiddenFrames(profile_tree, profile_shape);
  ASSIGN_OR_RETURN(const TreeShape shape, CheckTreeShape(tree));
  pprof::Profile profile;
  StringTable strings(&profile);
  std::vector<std::string> left_out;
  const std::vector<SampleColumn> columns = BuildSampleColumns(tree, shape, &left_out);
  for (const SampleColumn& column : columns) {
    pprof::ValueType* type = profile.add_sample_type();
    type->set_type(strings.Index(column.type));
    type->set_unit(strings.Index(column.unit));
  }
  // One mapping that says the functions are known: pprof does not look for binaries to
  // symbolize.
  pprof::Mapping* mapping = profile.add_mapping();
  mapping->set_id(kMappingId);
  mapping->set_filename(strings.Index("protond"));
  mapping->set_has_functions(true);
  AddSamples(shape, AddFunctions(tree, strings, &profile), columns, &profile);
  SetDefaultSampleType(columns, strings, &profile);
  AddOrigin(origin, tree, left_out, strings, &profile);
  return profile;
}

absl::StatusOr<std::string> RenderPprof(const v1::Tree& tree, const PprofOrigin& origin) {
  ASSIGN_OR_RETURN(const pprof::Profile profile, BuildPprofProfile(tree, origin));
  if (profile.ByteSizeLong() > INT_MAX) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the pprof profile would take ", profile.ByteSizeLong(),
                     " bytes, past protobuf's limit of 2 GiB for one message"));
  }
  return Gzip(profile.SerializeAsString());
}

}  // namespace protond::view
