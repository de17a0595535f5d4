// The API answers that need nothing but a ProfileSource (docs/web.md): /api/sessions, /api/tree,
// /api/diff, /api/top, /api/stalls and /api/history, served alike by protonctl ui and protond;
// and the reading of parameters and protond's messages that every API answer shares.
// Thread-safe as the ProfileSource is.
#ifndef PROTOND_PAGE_SERVER_PROFILE_API_H_
#define PROTOND_PAGE_SERVER_PROFILE_API_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "page_server/http_message.h"
#include "page_server/profile_source.h"
#include "view/tree/profile_view.h"
#include "view/tree/top_kernels.h"

namespace protond::page_server {

using ApiParameters = std::map<std::string, std::string>;

// The answer to GET `path` for /api/sessions, /api/tree, /api/diff, /api/top, /api/stalls and
// /api/history:
// JSON, errors as statuses (InvalidArgumentError names the parameter). NotFoundError "no such
// API" for any other path.
absl::StatusOr<Response> AnswerProfileApi(ProfileSource& source, absl::string_view path,
                                          const ApiParameters& parameters);

// An InvalidArgumentError that starts with the parameter's name, as every 400 does.
absl::Status BadParameter(absl::string_view name, absl::string_view message);
// The parameter's value; BadParameter when it is missing or empty.
absl::StatusOr<std::string> Required(const ApiParameters& parameters, const std::string& name);
// The parameter's value, "" when it is missing.
std::string Optional(const ApiParameters& parameters, const std::string& name);
// The parameter as a session id; BadParameter for a missing one or not a session id.
absl::StatusOr<uint64_t> SessionParameter(const ApiParameters& parameters, const std::string& name);
// `metrics` and `names` as the view's options; BadParameter for a `names` not short or full.
absl::StatusOr<view::ViewOptions> ViewOptionsOf(const ApiParameters& parameters);

// /api/top's and /api/stalls' parameters: `protonctl top ID [-n N] [--full-names]`'s.
struct TopParameters {
  uint64_t session = 0;
  int limit = view::kDefaultTopKernels;                        // limit, as -n
  view::KernelNames kernel_names = view::KernelNames::kShort;  // names
};

// `session`, `limit` and `names`, refused with the messages protonctl top gives its arguments
// (after the parameter's name: "limit: -n needs a number >= 0, not 'x'").
absl::StatusOr<TopParameters> TopParametersOf(const ApiParameters& parameters);

// /api/top's answer but "session": the kernels `protonctl top` lists (view::BuildTopKernels, as
// it does) and the tree's devices, with their peaks.
absl::StatusOr<nlohmann::json> TopJson(const v1::Tree& tree, const TopParameters& top);

// /api/stalls' answer but "session": the `limit` lines `protonctl top --stalls` lists, and with
// `instruction_tree` (the same session's tree with instructions, for sass=1) each line's SASS
// instructions as `protonctl tree -f sass` shows them, and that tree's notes.
absl::StatusOr<nlohmann::json> StallsJson(const v1::Tree& tree, const v1::Tree* instruction_tree,
                                          int limit);

// A message of protond's in protobuf's JSON mapping with the proto's field names and every field
// (docs/web.md); 64-bit integers are strings there.
absl::StatusOr<nlohmann::json> ProtoJson(const google::protobuf::Message& message);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_PROFILE_API_H_
