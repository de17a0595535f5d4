// How protonctl's profile commands read their arguments: options with values, and the one
// profile (a session id or a file) that is left. Shared by tree, top and export.
#ifndef PROTOND_CLI_ARG_READER_H_
#define PROTOND_CLI_ARG_READER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace protond::cli {

// Walks `args`, handing each option its value; what is left must be the one profile. Errors are
// InvalidArgumentError naming the argument ("unknown option '--folow'").
class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}

  bool Next() { return ++i_ < args_.size(); }
  const std::string& arg() const { return args_[i_]; }
  bool Is(const char* name, const char* other_name = nullptr) const {
    return arg() == name || (other_name != nullptr && arg() == other_name);
  }
  absl::StatusOr<std::string> Value() {
    if (i_ + 1 >= args_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(arg(), " needs a value"));
    }
    return args_[++i_];
  }
  absl::Status Profile(std::string* profile) const {
    if (!arg().empty() && arg()[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg(), "'"));
    }
    if (!profile->empty() || arg().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg(), "'"));
    }
    *profile = arg();
    return absl::OkStatus();
  }

 private:
  const std::vector<std::string>& args_;
  size_t i_ = static_cast<size_t>(-1);
};

}  // namespace protond::cli

#endif  // PROTOND_CLI_ARG_READER_H_
