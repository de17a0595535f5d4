// `protonctl --hosts LIST COMMAND ...` for every command but `tree --job` (job_tree_command.h):
// this protonctl runs once per host, all at once, with `--host HOST` and the caller's token and TLS
// options, and each run's output is printed under a heading, in the list's order. A host that
// fails is named at the end, and the others' output still shows.
#ifndef PROTOND_CLI_FAN_OUT_EACH_HOST_H_
#define PROTOND_CLI_FAN_OUT_EACH_HOST_H_

#include <string>
#include <vector>

namespace protond::cli {

// Runs `self --host HOST remote_flags... args...` for each of `hosts` and prints (stdout) "==
// HOST" then what the run wrote (stdout and stderr, in order); then, on stderr, one line naming
// the hosts whose run failed. Returns 0 when every run exited 0, else 1.
int RunOnEachHost(const std::string& self, const std::vector<std::string>& hosts,
                  const std::vector<std::string>& remote_flags,
                  const std::vector<std::string>& args);

}  // namespace protond::cli

#endif  // PROTOND_CLI_FAN_OUT_EACH_HOST_H_
