#include "cli/fan_out/each_host.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/process/spawn.h"

namespace protond::cli {
namespace {

struct HostRun {
  pid_t pid = -1;
  int output_fd = -1;   // a memfd: stdout and stderr of the run, in the order written
  std::string failure;  // "" when it exited 0
};

HostRun Start(const std::string& self, const std::string& host,
              const std::vector<std::string>& remote_flags, const std::vector<std::string>& args) {
  HostRun run;
  run.output_fd = memfd_create("protonctl-host", MFD_CLOEXEC);
  if (run.output_fd < 0) {
    run.failure = "cannot make a buffer for its output";
    return run;
  }
  std::vector<std::string> argv = {self, "--host", host};
  argv.insert(argv.end(), remote_flags.begin(), remote_flags.end());
  argv.insert(argv.end(), args.begin(), args.end());
  process::SpawnOptions options;
  options.stdout_fd = run.output_fd;
  options.stderr_fd = run.output_fd;
  const absl::StatusOr<pid_t> pid = process::Spawn(argv, options);
  if (pid.ok()) {
    run.pid = *pid;
  } else {
    run.failure = "cannot start protonctl for it";
  }
  return run;
}

std::string Finish(HostRun& run) {
  if (run.pid > 0) {
    int status = 0;
    while (waitpid(run.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      run.failure = WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status))
                                      : absl::StrCat("signal ", WTERMSIG(status));
    }
  }
  std::string output;
  if (run.output_fd >= 0) {
    char buffer[65536];
    ssize_t n;
    lseek(run.output_fd, 0, SEEK_SET);
    while ((n = read(run.output_fd, buffer, sizeof(buffer))) > 0) output.append(buffer, n);
    close(run.output_fd);
  }
  return output;
}

}  // namespace

int RunOnEachHost(const std::string& self, const std::vector<std::string>& hosts,
                  const std::vector<std::string>& remote_flags,
                  const std::vector<std::string>& args) {
  std::vector<HostRun> runs;
  for (const std::string& host : hosts) runs.push_back(Start(self, host, remote_flags, args));
  std::vector<std::string> failed;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string output = Finish(runs[i]);
    std::printf("== %s\n%s", hosts[i].c_str(), output.c_str());
    if (!output.empty() && output.back() != '\n') std::printf("\n");
    if (!runs[i].failure.empty())
      failed.push_back(absl::StrCat(hosts[i], " (", runs[i].failure, ")"));
  }
  std::fflush(stdout);
  if (failed.empty()) return 0;
  std::fprintf(stderr, "protonctl: %zu of %zu hosts failed: %s\n", failed.size(), hosts.size(),
               absl::StrJoin(failed, ", ").c_str());
  return 1;
}

}  // namespace protond::cli
