// Builds the API's view of a session's NCCL collective calls from the store: each call with its
// process's pid (the daemon's, not the plugin's) and the path of the scope it was called from.
#ifndef PROTOND_DAEMON_QUERY_COLLECTIVE_QUERY_H_
#define PROTOND_DAEMON_QUERY_COLLECTIVE_QUERY_H_

#include "daemon/store/store.h"
#include "protond.pb.h"

namespace protond::query {

// The calls of `stored` in its order; `session` gives each process's pid (0 for a process it does
// not list). A scope path joins the names of its node's ancestors below ROOT with '/'.
v1::Collectives BuildCollectives(const store::StoredCollectives& stored,
                                 const v1::Session& session);

}  // namespace protond::query

#endif  // PROTOND_DAEMON_QUERY_COLLECTIVE_QUERY_H_
