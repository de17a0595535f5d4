// A number from the environment, for both halves of the shim (the front links no C++ library, so
// this uses the C library only).
#ifndef PROTOND_SHIM_LOADING_ENV_NUMBER_H_
#define PROTOND_SHIM_LOADING_ENV_NUMBER_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

namespace protond::shim {

// The unsigned decimal in $`name`, or `fallback` when it is unset or empty. Anything else (a
// sign, letters, trailing text) is reported on stderr and `fallback` used: a typo must not turn
// profiling into something else silently, nor harm the program.
inline uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-') {
    fprintf(stderr, "protond: %s='%s' is not a number; using %llu\n", name, text,
            static_cast<unsigned long long>(fallback));
    return fallback;
  }
  return value;
}

}  // namespace protond::shim

#endif  // PROTOND_SHIM_LOADING_ENV_NUMBER_H_
