// The library the loader's tests load. Its ENTRY appends its argument and a newline to the file
// that the argument names (the text before the first '|'), so a test sees that it ran and with
// what; with "|signal" at the end it sends SIGUSR1 to its own thread, which the loader must hold
// back until the thread is put back, and with "|stop" SIGSTOP, which cannot be held back: the
// loader must take it and send it again afterwards. It sets errno and every vector register (all of
// them are the caller's to save), which the loader must put back too. Plain C calls only: the
// programs it is loaded into need not have libstdc++.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

constexpr int kReturned = 4242;

bool EndsWith(const char* text, const char* suffix) {
  const size_t length = strlen(text);
  const size_t suffix_length = strlen(suffix);
  return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

void SignalOwnThread(int signal) { syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signal); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int protond_attach_test_entry(
    const char* argument) {
  char path[4096] = {};
  const size_t path_bytes = strcspn(argument, "|");
  if (path_bytes >= sizeof(path)) return -1;
  memcpy(path, argument, path_bytes);
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const bool written =
      write(fd, argument, strlen(argument)) == static_cast<ssize_t>(strlen(argument)) &&
      write(fd, "\n", 1) == 1;
  close(fd);
  if (EndsWith(argument, "|signal")) SignalOwnThread(SIGUSR1);
  if (EndsWith(argument, "|stop")) SignalOwnThread(SIGSTOP);
  errno = EILSEQ;
  __asm__ volatile(
      "pcmpeqd %%xmm0, %%xmm0\n\t"
      "movdqa %%xmm0, %%xmm1\n\tmovdqa %%xmm0, %%xmm2\n\tmovdqa %%xmm0, %%xmm3\n\t"
      "movdqa %%xmm0, %%xmm4\n\tmovdqa %%xmm0, %%xmm5\n\tmovdqa %%xmm0, %%xmm6\n\t"
      "movdqa %%xmm0, %%xmm7\n\tmovdqa %%xmm0, %%xmm8\n\tmovdqa %%xmm0, %%xmm9\n\t"
      "movdqa %%xmm0, %%xmm10\n\tmovdqa %%xmm0, %%xmm11\n\tmovdqa %%xmm0, %%xmm12\n\t"
      "movdqa %%xmm0, %%xmm13\n\tmovdqa %%xmm0, %%xmm14\n\tmovdqa %%xmm0, %%xmm15"
      :
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
  return written ? kReturned : -1;
}
