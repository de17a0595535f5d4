// What the integration tests share: a real protond in a temporary directory, and running the
// project's binaries (protonctl, sample_workload) as child processes with their output captured.
// Binaries are found through PROTOND_BIN_DIR, which CTest sets to the build's bin folder.
#ifndef PROTOND_TESTS_INTEGRATION_HARNESS_H_
#define PROTOND_TESTS_INTEGRATION_HARNESS_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "protond.pb.h"

namespace protond::testing {

std::string BinDir();
// A fresh directory, removed when the test program ends with every test passed.
std::string MakeTempDir();
std::string ReadFile(const std::string& path);  // "" when it cannot be read

struct Completed {
  int exit_code = -1;  // 128+signal when killed
  std::string out;
  std::string err;
};

struct ChildOptions {
  std::map<std::string, std::string> env;  // added to (or replacing) the test's environment
  uid_t uid = 0;                           // run as this user when non-zero (tests run as root)
};

// Starts argv[0] (a path) in the background; output goes to files in `dir`.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& dir,
            const ChildOptions& options = {});
// Waits for a child started by Spawn and collects its output.
Completed Wait(pid_t pid, const std::string& dir);
// What a child started by Spawn has written to its stdout so far.
std::string SpawnedOutput(pid_t pid, const std::string& dir);
Completed RunToEnd(const std::vector<std::string>& argv, const std::string& dir,
                   const ChildOptions& options = {});

// A protond serving `dir`/protond.sock with its store in `dir`/state.
class Daemon {
 public:
  explicit Daemon(std::string dir);
  ~Daemon();  // SIGTERM and wait; SIGKILL, and a test failure, after 10 s

  // Returns once the socket answers; `extra_args` follow --socket and --state-dir.
  void Start(const std::vector<std::string>& extra_args = {});
  void Kill(int signal_number);    // and waits for it to end
  void Signal(int signal_number);  // no waiting: SIGSTOP, SIGCONT
  // Whether it still runs. waitpid(WNOHANG) reaps it if it has ended, and `how` then says how
  // ("exited with status 1", "was killed by signal 25"): kill(pid, 0) succeeds on an ended child
  // that nobody reaped, so it cannot tell.
  bool StillRunning(std::string* how);
  std::string socket() const { return dir_ + "/protond.sock"; }
  std::string state_dir() const { return dir_ + "/state"; }
  std::string log_path() const { return dir_ + "/protond.log"; }
  // The number after `label` in the log: a port protond says it took (", port " for --listen,
  // "metrics port " for --metrics-listen); 0 when the log has none.
  int LoggedPort(const std::string& label) const;
  pid_t pid() const { return pid_; }

 private:
  std::string dir_;
  pid_t pid_ = -1;
};

// Stops a daemon that is not this test's child (a detached one, an autostarted one) with SIGTERM
// and waits until it has exited.
void StopDetachedDaemon(pid_t pid);

// A second user, made with useradd for a test that runs as root and removed after it.
class OtherUser {
 public:
  OtherUser();
  ~OtherUser();
  uid_t uid() const { return uid_; }  // 0 when it could not be made

 private:
  std::string name_;
  uid_t uid_ = 0;
};

// The records sample_workload writes with these options (docs: sample/sample_workload.cc): the
// main thread 3 (setup) + 2 (train) + 9 per step, each worker 2 (worker) + 2 (state) + 3 per load.
uint64_t SampleWorkloadRecords(int steps, int threads, int loads);

// A self-signed certificate for localhost and 127.0.0.1, made by openssl for protond --listen:
// `dir`/cert.pem (also the clients' CA) and `dir`/key.pem. A test failure when openssl fails.
void MakeLoopbackCertificate(const std::string& dir);
// Writes `text` to `path`, readable and writable by its owner only (as protond --tokens wants).
void WritePrivateFile(const std::string& path, const std::string& text);

// The whole answer to `request` on 127.0.0.1:`port` (the server closes the connection after it):
// GET /metrics of protond --metrics-listen.
std::string ExchangeOnLoopback(int port, const std::string& request);
// The value of the sample `series` (a name with its labels as written) in the text of GET
// /metrics; -1 if absent.
double MetricSample(const std::string& text, const std::string& series);

// A session's tree, by slash-separated path ("train/step/forward"), for exact assertions; ROOT
// is left out. A path held by two nodes, or a node whose parent is not in the tree, is a test
// failure (a map would keep one of the two, or file the node under ROOT, without a word).
std::map<std::string, v1::TreeNode> NodesByPath(const v1::Tree& tree);
// `tree` has the nodes of `undisturbed` (the same workload's tree where nothing went wrong),
// path by path, each with the same count and the same metrics: every one, its name, aggregation,
// type and value. Durations are wall time and differ from run to run: not compared.
void ExpectSameTree(const v1::Tree& tree, const v1::Tree& undisturbed);
// The value of metric `name` at `node` (int or double), or -1 if absent.
double MetricValue(const v1::TreeNode& node, const std::string& name);

}  // namespace protond::testing

#endif  // PROTOND_TESTS_INTEGRATION_HARNESS_H_
