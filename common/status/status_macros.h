// Status plumbing shared by every component. Debian's Abseil (20220623) has no macros of its
// own for this; these two are the only ones the project uses.
#ifndef PROTOND_COMMON_STATUS_STATUS_MACROS_H_
#define PROTOND_COMMON_STATUS_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PROTOND_CONCAT_INNER(a, b) a##b
#define PROTOND_CONCAT(a, b) PROTOND_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    absl::Status protond_status_ = (expr);             \
    if (!protond_status_.ok()) return protond_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F());` declares x from an absl::StatusOr, or returns its status.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(PROTOND_CONCAT(protond_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(*tmp)

#endif  // PROTOND_COMMON_STATUS_STATUS_MACROS_H_
