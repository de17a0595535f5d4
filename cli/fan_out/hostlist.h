// Slurm's hostlist syntax, as `protonctl --hosts` takes it: "node[01-04,07]:7878" is node01,
// node02, node03, node04 and node07, each at port 7878. Items are separated by commas outside
// brackets; each item may hold several bracket groups ("rack[1-2]-gpu[1-2]"); numbers keep the
// zero padding of the range's first bound, as Slurm's do. Pure functions; no I/O.
#ifndef PROTOND_CLI_FAN_OUT_HOSTLIST_H_
#define PROTOND_CLI_FAN_OUT_HOSTLIST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::cli {

// At most this many hosts: a typo such as node[1-100000] is an error, not 100000 connections.
inline constexpr size_t kMaxHosts = 4096;

// The hosts of `hostlist`, in order, each once; InvalidArgumentError naming what is wrong.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view hostlist);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_HOSTLIST_H_
