// A C++ client of protond's gRPC API, over its unix socket or over TCP to a remote protond
// (`protond --listen`), used by protonctl, the shim and schedulers. Each call has a deadline; a
// daemon that accepts at its socket but does not answer (stopped, or busy) gets up to 5 s of it.
// Errors are absl::Status with a message a user can act on (for example, no daemon at the socket
// path and how to start one, or the pid of the one that does not answer).
#ifndef PROTOND_CLIENT_LIB_CPP_CLIENT_H_
#define PROTOND_CLIENT_LIB_CPP_CLIENT_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "protond.grpc.pb.h"

namespace protond::client {

// Where a protond is: the unix socket of this machine's, or (`host` set) a remote one over TCP,
// which needs a token and, unless `insecure`, verifies the daemon's TLS certificate.
struct Endpoint {
  std::string socket_path;
  std::string host;        // HOST:PORT that a protond --listen serves
  std::string token;       // sent with each call to a remote protond
  std::string tls_ca_pem;  // the certificates that may sign the daemon's; "" for the system's
  bool insecure = false;   // plain TCP (the daemon serves it on loopback addresses only)

  // The socket or HOST:PORT, for messages.
  const std::string& Name() const { return host.empty() ? socket_path : host; }
};

// A channel to the daemon at `endpoint`.
std::shared_ptr<grpc::Channel> Connect(const Endpoint& endpoint);

// Turns a failed RPC into a Status; UNAVAILABLE from a remote daemon names it and what to check.
absl::Status FromGrpc(const grpc::Status& status, const Endpoint& endpoint);

class Client {
 public:
  explicit Client(Endpoint endpoint, std::chrono::milliseconds deadline = std::chrono::seconds(30));
  // The daemon at a unix socket.
  explicit Client(std::string socket_path,
                  std::chrono::milliseconds deadline = std::chrono::seconds(30));

  const std::string& socket_path() const { return endpoint_.socket_path; }
  const Endpoint& endpoint() const { return endpoint_; }

  // `mode`: Proton's (common/mode/session_mode.h), "" for none; the daemon refuses a bad one.
  // A `name` that common/text/session_name.h refuses is refused before anything is sent (one
  // that is not UTF-8 could not be); Attach checks its request's name alike.
  absl::StatusOr<v1::Session> StartSession(const std::string& name,
                                           v1::Session::Data data = v1::Session::TREE,
                                           const std::string& mode = "");
  absl::StatusOr<v1::Session> StopSession(uint64_t session_id);
  // Stops the running session that process `pid` records into.
  absl::StatusOr<v1::Session> StopSessionOfProcess(uint32_t pid);
  // A session over running processes (protonctl start --pid/--job).
  absl::StatusOr<v1::AttachResponse> Attach(const v1::AttachRequest& request);
  absl::StatusOr<v1::ListProcessesResponse> ListProcesses(bool all = false);
  absl::StatusOr<v1::Session> FlushSession(uint64_t session_id);
  absl::StatusOr<v1::ListSessionsResponse> ListSessions();
  // One of ListSessions' sessions; NotFoundError when it lists none with that id.
  absl::StatusOr<v1::Session> GetSession(uint64_t session_id);
  // The session's tree; with `rank`, only what its processes of that RANK contributed; with
  // `instructions`, each PC-sampled SASS instruction under its source line.
  absl::StatusOr<v1::Tree> GetTree(uint64_t session_id, const std::string& rank = "",
                                   bool instructions = false);
  // The always-on windows the request selects, oldest first, with their summaries.
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(const v1::ListHistoryRequest& request);
  absl::StatusOr<v1::RangeTree> GetRangeTree(const v1::ListHistoryRequest& request);
  // The session's tree as protond renders it with `options` (protond.proto's ViewTree).
  absl::StatusOr<std::string> ViewTree(uint64_t session_id, const std::string& rank,
                                       const v1::ViewOptions& options);
  // A trace session's events: the streamed chunks, merged into one Trace. `on_chunk`, if set, is
  // told after each chunk how many events have come of how many the trace holds.
  using TraceProgress = std::function<void(uint64_t received_events, uint64_t event_count)>;
  absl::StatusOr<v1::Trace> GetTrace(uint64_t session_id, const TraceProgress& on_chunk = {});
  // Any session's NCCL collective calls, from the shim's NCCL profiler plugin (none without it).
  absl::StatusOr<v1::Collectives> GetCollectives(uint64_t session_id);
  // The daemon's CLOCK_MONOTONIC now, in ns; UNIMPLEMENTED from a protond older than GetClock.
  absl::StatusOr<int64_t> GetClock();

 private:
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Call(Stub* stub,
                                grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                const Request& request) const;

  // A call's context: its deadline, and the token for a remote daemon.
  void Prepare(grpc::ClientContext& context) const;

  // Whether the channel is connected: a failed call then had its answer from the daemon.
  bool ReachedDaemon() const;
  // For a call that failed with `status` before it reached a daemon at the unix socket, while
  // something accepts there (a daemon stopped or busy for a moment, or its backlog full): waits
  // until `give_up` for the channel to connect, and says whether to make the call again.
  bool WaitForSilentDaemon(const grpc::Status& status,
                           std::chrono::system_clock::time_point give_up) const;
  // A failed call's Status; one that never reached the daemon at the unix socket names what is
  // there: a daemon that does not answer, or none and how to start one.
  absl::Status Failed(const grpc::Status& status) const;
  // One GetTrace stream, its chunks merged into `trace` (cleared first).
  grpc::Status ReadTrace(uint64_t session_id, const TraceProgress& on_chunk,
                         v1::Trace& trace) const;

  Endpoint endpoint_;
  std::chrono::milliseconds deadline_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Sessions::Stub> sessions_;
  std::unique_ptr<v1::Query::Stub> query_;
};

}  // namespace protond::client

#endif  // PROTOND_CLIENT_LIB_CPP_CLIENT_H_
