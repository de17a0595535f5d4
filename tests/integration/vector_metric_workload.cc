// Records vector metrics through the shim's C ABI (ABI version 10), as a C or C++ program would:
// [1, 2, 3] and [0.5, 1.5] twice into scope "s", then a vector of another length, a scalar under
// a vector's name, no elements and too many, each of which must be refused. Prints what each
// refused call returned with its message, and exits 0 either way.
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "protond/shim.h"

namespace {

void Refused(const char* what, protond_result result) {
  std::printf("%s %d: %s\n", what, result, protond_last_error());
}

}  // namespace

int main() {
  uint64_t session = 0;
  if (protond_session_start("vectors", &session) != PROTOND_OK) {
    std::printf("start failed: %s\n", protond_last_error());
    return 0;
  }
  const int64_t ints[] = {1, 2, 3};
  const double doubles[] = {0.5, 1.5};
  for (int i = 0; i < 2; ++i) {
    protond_scope_enter("s");
    protond_metric_int64_vector("v", ints, 3);
    protond_metric_double_vector("w", doubles, 2);
    protond_scope_exit("s");
  }
  protond_scope_enter("s");
  Refused("shorter", protond_metric_int64_vector("v", ints, 2));
  Refused("scalar", protond_metric_int64("v", 1));
  Refused("empty", protond_metric_int64_vector("e", ints, 0));
  const std::vector<int64_t> many(PROTOND_MAX_VECTOR_METRIC_ELEMENTS + 1, 1);
  Refused("many", protond_metric_int64_vector("e", many.data(), many.size()));
  protond_scope_exit("s");
  protond_flush();
  protond_session_stop(session);
  std::printf("session %" PRIu64 "\n", session);
  return 0;
}
