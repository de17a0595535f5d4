// /api/job (docs/web.md): a job's ranks side by side as `protonctl tree --job` shows them, and
// `protonctl job --job`'s verdict, read from `nodes`: protonctl ui's daemon (or each of its
// --hosts), or protond's own page's service as the signed-in user. Thread-safe as the nodes'
// sources are.
#ifndef PROTOND_PAGE_SERVER_JOB_API_H_
#define PROTOND_PAGE_SERVER_JOB_API_H_

#include <span>

#include "absl/status/statusor.h"
#include "page_server/http_message.h"
#include "page_server/job_node.h"
#include "page_server/profile_api.h"

namespace protond::page_server {

// JSON; errors as statuses: a missing `job` or a bad `names` or `metrics` is an
// InvalidArgumentError naming it, a job with no session the caller may see NotFound.
absl::StatusOr<Response> AnswerJobApi(std::span<const JobNode> nodes,
                                      const ApiParameters& parameters);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_JOB_API_H_
