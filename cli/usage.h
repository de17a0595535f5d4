// What protonctl prints for --help, -h and a command line it cannot read: the whole usage, or one
// command's part of it, so that `protonctl tree --help` shows the tree's options alone. Pure
// functions; no I/O.
#ifndef PROTOND_CLI_USAGE_H_
#define PROTOND_CLI_USAGE_H_

#include <string>
#include <vector>

namespace protond::cli {

// Every command's usage under the global options, then where the socket and remote daemons come
// from (`default_socket` named there).
std::string ProtonctlUsage(const std::string& default_socket);

// The usage of `command` ("tree", "run"), as ProtonctlUsage lists it; "" for a command protonctl
// does not have.
std::string CommandUsage(const std::string& command);

// Whether a command's `args` ask for its usage: -h or --help, before any "--" (after it, they are
// the arguments of the program `run` starts).
bool AsksForHelp(const std::vector<std::string>& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_USAGE_H_
