#include "tests/integration/harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "client-lib/cpp/client.h"
#include "gtest/gtest.h"

namespace protond::testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string BinDir() {
  const char* dir = std::getenv("PROTOND_BIN_DIR");
  return dir != nullptr ? dir : ".";
}

namespace {

// Removes the temporary directories of each test that passed once it has ended (its daemons
// stopped by then), and keeps a failed test's, saying where: its store, logs and copied binaries
// are what one reads then. Left behind on every run, they once filled the disk the CI shares.
class TempDirRemover : public ::testing::EmptyTestEventListener {
 public:
  void Add(const std::string& dir) { dirs_.push_back(dir); }

  void OnTestEnd(const ::testing::TestInfo& test) override {
    for (const std::string& dir : dirs_) {
      if (test.result()->Passed()) {
        std::error_code ignored;  // a child still writing may leave a file; nothing to do then
        std::filesystem::remove_all(dir, ignored);
      } else {
        std::fprintf(stderr, "kept for reading: %s\n", dir.c_str());
      }
    }
    dirs_.clear();
  }

 private:
  std::vector<std::string> dirs_;
};

TempDirRemover& Remover() {
  // gtest owns the listener once appended; tests run one at a time within a program.
  static TempDirRemover* const remover = [] {
    auto* created = new TempDirRemover;
    ::testing::UnitTest::GetInstance()->listeners().Append(created);
    return created;
  }();
  return *remover;
}

}  // namespace

std::string MakeTempDir() {
  std::string pattern = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") +
                        "/protond-test-XXXXXX";
  const char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  chmod(pattern.c_str(), 0755);  // a second user (isolation test) must reach the socket
  Remover().Add(pattern);
  return pattern;
}

namespace {

// Each child writes its own files: a program left running in the background and the commands
// run meanwhile must not write over each other's output.
std::string ChildOutputPath(const std::string& dir, pid_t pid) {
  return dir + "/child." + std::to_string(pid);
}

}  // namespace

pid_t Spawn(const std::vector<std::string>& argv, const std::string& dir,
            const ChildOptions& options) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const std::string output = ChildOutputPath(dir, getpid());
  const int out = open((output + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = open((output + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(out, 1);
  dup2(err, 2);
  for (const auto& [name, value] : options.env) setenv(name.c_str(), value.c_str(), 1);
  if (options.uid != 0 && (setgid(options.uid) != 0 || setuid(options.uid) != 0)) _exit(126);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  std::perror(args[0]);
  _exit(127);
}

Completed Wait(pid_t pid, const std::string& dir) {
  int status = 0;
  waitpid(pid, &status, 0);
  Completed done;
  done.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const std::string output = ChildOutputPath(dir, pid);
  done.out = ReadFile(output + ".out");
  done.err = ReadFile(output + ".err");
  std::remove((output + ".out").c_str());
  std::remove((output + ".err").c_str());
  return done;
}

std::string SpawnedOutput(pid_t pid, const std::string& dir) {
  return ReadFile(ChildOutputPath(dir, pid) + ".out");
}

Completed RunToEnd(const std::vector<std::string>& argv, const std::string& dir,
                   const ChildOptions& options) {
  return Wait(Spawn(argv, dir, options), dir);
}

Daemon::Daemon(std::string dir) : dir_(std::move(dir)) {}

Daemon::~Daemon() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  // One that does not end (stopped, or stuck) would hang the test binary until CTest's timeout.
  for (int i = 0; i < 1000; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "protond " << pid_ << " did not end within 10 s of SIGTERM; killed";
  Kill(SIGKILL);
}

void Daemon::Start(const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {BinDir() + "/protond", "--socket", socket(), "--state-dir",
                                   state_dir()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    const int log = open(log_path().c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(log, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    // A fresh channel each time: a failed one backs off before it tries again.
    if (client::Client(socket(), std::chrono::seconds(1)).ListSessions().ok()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "protond did not start: " << ReadFile(dir_ + "/protond.log");
}

void Daemon::Signal(int signal_number) { kill(pid_, signal_number); }

bool Daemon::StillRunning(std::string* how) {
  if (pid_ <= 0) {
    *how = "was not running";
    return false;
  }
  int status = 0;
  const pid_t reaped = waitpid(pid_, &status, WNOHANG);
  if (reaped == 0) return true;
  if (reaped < 0) {
    *how = std::string("cannot be waited for: ") + std::strerror(errno);
  } else if (WIFEXITED(status)) {
    *how = "exited with status " + std::to_string(WEXITSTATUS(status));
  } else {
    *how = "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  pid_ = -1;  // reaped: the number may soon be another process's
  return false;
}

int Daemon::LoggedPort(const std::string& label) const {
  const std::string log = ReadFile(log_path());
  const size_t at = log.find(label);
  int port = 0;
  if (at == std::string::npos) return 0;
  const size_t begin = at + label.size();
  return absl::SimpleAtoi(log.substr(begin, log.find('\n', begin) - begin), &port) ? port : 0;
}

void StopDetachedDaemon(pid_t pid) {
  ASSERT_GT(pid, 0);  // kill(0) or kill(-1) would signal the test's own processes
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  for (int i = 0; i < 1000; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, command, state;
    if (!(stat >> pid_field >> command >> state) || state == "Z") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "protond " << pid << " did not exit within 10 s of SIGTERM";
}

uint64_t SampleWorkloadRecords(int steps, int threads, int loads) {
  return 5 + 9 * static_cast<uint64_t>(steps) +
         static_cast<uint64_t>(threads) * (4 + 3 * static_cast<uint64_t>(loads));
}

void Daemon::Kill(int signal_number) {
  kill(pid_, signal_number);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

OtherUser::OtherUser() : name_("protond-t" + std::to_string(getpid() % 100000)) {
  const std::string command =
      "useradd --system --no-create-home --shell /usr/sbin/nologin " + name_;
  if (std::system(command.c_str()) == 0) {
    if (const passwd* pw = getpwnam(name_.c_str()); pw != nullptr) uid_ = pw->pw_uid;
  }
}

OtherUser::~OtherUser() {
  if (uid_ != 0) std::system(("userdel " + name_).c_str());
}

namespace {

using NodesById = std::map<uint32_t, const v1::TreeNode*>;

// The path of `node` below ROOT; nullopt, and a test failure, when one of its parents is not in
// the tree or the parents go round in a circle.
std::optional<std::string> PathOf(const NodesById& by_id, const v1::TreeNode& node) {
  std::string path = node.name();
  const v1::TreeNode* at = &node;
  for (size_t up = 0; up < by_id.size(); ++up) {
    if (at->parent_id() == 0) return path;
    auto parent = by_id.find(at->parent_id());
    if (parent == by_id.end()) {
      ADD_FAILURE() << "node " << node.id() << " (" << path << ") has parent " << at->parent_id()
                    << ", which is not in the tree";
      return std::nullopt;
    }
    at = parent->second;
    path = at->name() + "/" + path;
  }
  ADD_FAILURE() << "the parents of node " << node.id() << " go round in a circle";
  return std::nullopt;
}

// A node's metrics, one line each (name, aggregation, typed value), in a fixed order.
std::vector<std::string> MetricLines(const v1::TreeNode& node) {
  std::vector<std::string> lines;
  for (const v1::Metric& metric : node.metrics()) lines.push_back(metric.ShortDebugString());
  std::sort(lines.begin(), lines.end());
  return lines;
}

const v1::TreeNode* RootOf(const v1::Tree& tree) {
  for (const v1::TreeNode& node : tree.nodes()) {
    if (node.id() == 0) return &node;
  }
  return nullptr;
}

}  // namespace

std::map<std::string, v1::TreeNode> NodesByPath(const v1::Tree& tree) {
  NodesById by_id;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (!by_id.emplace(node.id(), &node).second) ADD_FAILURE() << "two nodes have id " << node.id();
  }
  std::map<std::string, v1::TreeNode> by_path;
  for (const v1::TreeNode& node : tree.nodes()) {
    if (node.id() == 0) continue;
    const std::optional<std::string> path = PathOf(by_id, node);
    if (!path.has_value()) continue;
    auto [kept, added] = by_path.emplace(*path, node);
    if (!added) {
      ADD_FAILURE() << "nodes " << kept->second.id() << " and " << node.id()
                    << " have the same path " << *path;
    }
  }
  return by_path;
}

void ExpectSameTree(const v1::Tree& tree, const v1::Tree& undisturbed) {
  EXPECT_EQ(tree.nodes_size(), undisturbed.nodes_size());
  const v1::TreeNode* root = RootOf(tree);
  const v1::TreeNode* undisturbed_root = RootOf(undisturbed);
  ASSERT_TRUE(root != nullptr && undisturbed_root != nullptr) << "a tree without ROOT";
  EXPECT_EQ(MetricLines(*root), MetricLines(*undisturbed_root)) << "ROOT";
  const std::map<std::string, v1::TreeNode> nodes = NodesByPath(tree);
  const std::map<std::string, v1::TreeNode> expected = NodesByPath(undisturbed);
  for (const auto& [path, want] : expected) {
    auto got = nodes.find(path);
    if (got == nodes.end()) {
      ADD_FAILURE() << "no node " << path << ", which the undisturbed tree has";
      continue;
    }
    EXPECT_EQ(got->second.count(), want.count()) << path;
    EXPECT_EQ(MetricLines(got->second), MetricLines(want)) << path;
  }
  for (const auto& [path, node] : nodes) {
    EXPECT_TRUE(expected.contains(path)) << "node " << path << ", which the undisturbed tree lacks";
  }
}

double MetricValue(const v1::TreeNode& node, const std::string& name) {
  for (const v1::Metric& metric : node.metrics()) {
    if (metric.name() != name) continue;
    return metric.has_double_value() ? metric.double_value()
                                     : static_cast<double>(metric.int_value());
  }
  return -1;
}

void MakeLoopbackCertificate(const std::string& dir) {
  const Completed made =
      RunToEnd({"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", dir + "/key.pem", "-out",
                dir + "/cert.pem", "-days", "2", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1"},
               dir);
  EXPECT_EQ(made.exit_code, 0) << made.err;
}

void WritePrivateFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  chmod(path.c_str(), 0600);
}

std::string ExchangeOnLoopback(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    ssize_t n;
    while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) answer.append(buffer, n);
  }
  close(fd);
  return answer;
}

double MetricSample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  double value = -1;
  if (at == std::string::npos) return value;
  const size_t begin = at + series.size() + 2;
  EXPECT_TRUE(absl::SimpleAtod(text.substr(begin, text.find('\n', begin) - begin), &value));
  return value;
}

}  // namespace protond::testing
