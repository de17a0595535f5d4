// The programs the loader's tests load a library into: `protond_attach_target MODE`, each waiting
// or working the way real programs do, so that the loader stops them at all kinds of moments.
// After its setup a program prints "ready"; it runs until SIGTERM (read: until stdin ends), then
// prints "MODE ok usr1=N" (N: SIGUSR1 handled) and exits 0, or prints what went wrong and exits 1.
// Each mode checks that the loader's visit left no trace: a register, errno, or a system call
// that returned early.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

volatile sig_atomic_t g_stop = 0;
volatile sig_atomic_t g_usr1 = 0;
volatile sig_atomic_t g_sigchld = 0;

void Say(const std::string& line) {
  const std::string text = line + "\n";
  (void)!write(STDOUT_FILENO, text.data(), text.size());
}

int Fail(const std::string& why) {
  Say(why);
  return 1;
}

void InstallHandlers() {
  struct sigaction action = {};
  action.sa_flags = SA_RESTART;
  action.sa_handler = [](int) { g_stop = 1; };
  sigaction(SIGTERM, &action, nullptr);
  action.sa_handler = [](int) { g_usr1 = g_usr1 + 1; };
  sigaction(SIGUSR1, &action, nullptr);
  action.sa_handler = [](int) { g_sigchld = g_sigchld + 1; };
  sigaction(SIGCHLD, &action, nullptr);
}

// The same rounds of integer and floating-point work must give the same answer each time: a
// general or vector register that the loader did not put back changes it.
volatile uint64_t g_seed = 88172645463325252u;  // volatile: no compiler works a round out ahead

uint64_t Round() {
  uint64_t x = g_seed;
  double f = 1.0;
  for (int i = 0; i < 50000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    f = f * 1.0000001 + static_cast<double>(x & 0xff) * 1e-9;
  }
  return x ^ static_cast<uint64_t>(f * 1e6);
}

// Pure computation, never a system call. errno is the program's own and must stay 77 (read
// through a volatile pointer: nothing in the loop could change it, as far as the compiler knows).
int Busy() {
  volatile int* const program_errno = &errno;
  *program_errno = 77;
  const uint64_t first = Round();
  while (!g_stop) {
    if (Round() != first) return Fail("busy: a round gave another answer");
  }
  if (*program_errno != 77) return Fail("busy: errno is " + std::to_string(*program_errno));
  return 0;
}

// Blocked in read on a pipe: what it reads must be what the test wrote, whole.
int Read() {
  std::string data;
  char buffer[256];
  ssize_t got = 0;
  while ((got = read(STDIN_FILENO, buffer, sizeof(buffer))) > 0) data.append(buffer, got);
  if (got < 0) return Fail("read: failed with errno " + std::to_string(errno));
  Say("read " + data);
  return 0;
}

// Blocked in a condition variable's futex; a second thread sleeps until SIGTERM.
int Futex() {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  std::thread waker([&] {
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    changed.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return done; });
  }
  waker.join();
  return 0;
}

// In clock_nanosleep: an interrupted sleep must go on (the kernel restarts it) unless a handler
// ran.
int Sleep() {
  while (!g_stop) {
    const int usr1 = g_usr1;
    const timespec pause = {0, 5'000'000};
    if (clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, nullptr) == EINTR && !g_stop &&
        g_usr1 == usr1) {
      return Fail("sleep: interrupted with no signal handled");
    }
  }
  return 0;
}

// 64 threads: this one (the loader tries the main thread first) and 7 more allocate, fill, check
// and free all the time, so that most of their stops fall in malloc, holding an arena's lock;
// the other 56 sleep.
int Malloc() {
  std::atomic<bool> corrupt = false;
  const auto churn = [&corrupt](unsigned seed) {
    std::vector<std::pair<unsigned char*, size_t>> blocks(16, {nullptr, 0});
    for (unsigned i = seed; !g_stop; ++i) {
      auto& [block, size] = blocks[i % blocks.size()];
      for (size_t b = 0; b < size; b += 97) corrupt = corrupt || block[b] != (size & 0xff);
      free(block);
      size = 16 + (i * 2654435761u) % 65536;
      block = static_cast<unsigned char*>(malloc(size));
      memset(block, static_cast<int>(size & 0xff), size);
    }
    for (auto& [block, size] : blocks) free(block);
  };
  const auto sleep = [] {
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < 64; ++t) {
    threads.emplace_back(t < 8 ? std::function<void()>([&churn, t] { churn(t); })
                               : std::function<void()>(sleep));
  }
  churn(0);
  for (std::thread& thread : threads) thread.join();
  if (corrupt) return Fail("malloc: a block changed under its owner");
  return 0;
}

// Forks children that exit 7 at once, and reaps each (SIGCHLD handled meanwhile).
int Fork() {
  while (!g_stop) {
    const pid_t child = fork();
    if (child == 0) _exit(7);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 7) {
      return Fail("fork: child ended with status " + std::to_string(status));
    }
  }
  return 0;
}

int Run(std::string_view mode) {
  if (mode == "busy") return Busy();
  if (mode == "read") return Read();
  if (mode == "futex") return Futex();
  if (mode == "sleep") return Sleep();
  if (mode == "malloc") return Malloc();
  if (mode == "fork") return Fork();
  return Fail("unknown mode " + std::string(mode));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  // Ends after a millisecond of work: the test races the loader against the end of a process.
  if (mode == "exit") {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (std::chrono::steady_clock::now() < end) {
    }
    Say("exit ok");
    return 0;
  }
  InstallHandlers();
  Say("ready");
  const int failed = Run(mode);
  if (failed == 0) Say(std::string(mode) + " ok usr1=" + std::to_string(g_usr1));
  return failed;
}
