#include "client-lib/cpp/client.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client-lib/cpp/socket_probe.h"
#include "common/status/status_macros.h"
#include "common/text/session_name.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

namespace protond::client {
namespace {

// How long a call waits for a daemon that accepts connections at its socket but does not answer
// them: one stopped, or too busy for a moment (the kernel queues the connection meanwhile).
constexpr std::chrono::milliseconds kSilentDaemonWait = std::chrono::seconds(5);

// UnavailableError for a call that got no answer at the unix socket `socket_path`, by what is
// there: a daemon that accepts but does not answer, or none (and then how to start one).
absl::Status SilentSocketError(const std::string& socket_path) {
  const SocketProbe probe = ProbeSocket(socket_path);
  std::string message = DescribeSilentSocket(socket_path, probe);
  if (probe.NoDaemon()) {
    absl::StrAppend(&message, "; start one with: protond --socket ", socket_path,
                    " --state-dir DIR (or set PROTOND_SOCKET / --socket to the daemon you use)");
  }
  return absl::UnavailableError(message);
}

}  // namespace

std::shared_ptr<grpc::Channel> Connect(const Endpoint& endpoint) {
  grpc::ChannelArguments args;
  // Reconnect promptly after a daemon restart instead of backing off for up to two minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // gRPC's name for how long one connection attempt, connect() and the daemon's HTTP/2 greeting,
  // may take. At 100 ms a daemon that was busy or stopped for a moment was reported absent; a
  // socket that nobody listens on still fails at once.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, static_cast<int>(kSilentDaemonWait.count()));
  // A tree answer grows with the profile's frames (10k nodes are 0.5 MB, 80k pass gRPC's default
  // limit of 4 MB); the daemon is trusted to send what the profile holds.
  args.SetMaxReceiveMessageSize(-1);
  if (endpoint.host.empty()) {
    return grpc::CreateCustomChannel("unix:" + endpoint.socket_path,
                                     grpc::InsecureChannelCredentials(), args);
  }
  if (endpoint.insecure) {
    return grpc::CreateCustomChannel(endpoint.host, grpc::InsecureChannelCredentials(), args);
  }
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = endpoint.tls_ca_pem;
  return grpc::CreateCustomChannel(endpoint.host, grpc::SslCredentials(tls), args);
}

absl::Status FromGrpc(const grpc::Status& status, const Endpoint& endpoint) {
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !endpoint.host.empty()) {
    return absl::UnavailableError(absl::StrCat(
        "protond at ", endpoint.host, " does not answer (", status.error_message(),
        "); check that it runs with --listen there, and that ",
        endpoint.insecure ? "it was started with --insecure"
                          : "its certificate is signed by --tls-ca and names that host"));
  }
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::DeadlineExceededError(
        absl::StrCat("protond at ", endpoint.Name(), " did not answer in time"));
  }
  return absl::Status(code, status.error_message());
}

Client::Client(Endpoint endpoint, std::chrono::milliseconds deadline)
    : endpoint_(std::move(endpoint)),
      deadline_(deadline),
      channel_(Connect(endpoint_)),
      sessions_(v1::Sessions::NewStub(channel_)),
      query_(v1::Query::NewStub(channel_)) {}

namespace {

Endpoint UnixEndpoint(std::string socket_path) {
  Endpoint endpoint;
  endpoint.socket_path = std::move(socket_path);
  return endpoint;
}

}  // namespace

Client::Client(std::string socket_path, std::chrono::milliseconds deadline)
    : Client(UnixEndpoint(std::move(socket_path)), deadline) {}

void Client::Prepare(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() + deadline_);
  if (!endpoint_.token.empty()) context.AddMetadata("authorization", "Bearer " + endpoint_.token);
}

bool Client::ReachedDaemon() const { return channel_->GetState(false) == GRPC_CHANNEL_READY; }

bool Client::WaitForSilentDaemon(const grpc::Status& status,
                                 std::chrono::system_clock::time_point give_up) const {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE && endpoint_.host.empty() &&
         !ReachedDaemon() && ProbeSocket(endpoint_.socket_path).Accepts() &&
         channel_->WaitForConnected(give_up);
}

absl::Status Client::Failed(const grpc::Status& status) const {
  const bool unanswered = status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                          status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
  if (unanswered && endpoint_.host.empty() && !ReachedDaemon()) {
    return SilentSocketError(endpoint_.socket_path);
  }
  return FromGrpc(status, endpoint_);
}

template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> Client::Call(Stub* stub,
                                      grpc::Status (Stub::*method)(grpc::ClientContext*,
                                                                   const Request&, Response*),
                                      const Request& request) const {
  const auto give_up = std::chrono::system_clock::now() + std::min(deadline_, kSilentDaemonWait);
  Response response;
  const auto call = [&] {
    grpc::ClientContext context;
    Prepare(context);
    return (stub->*method)(&context, request, &response);
  };
  grpc::Status status = call();
  if (WaitForSilentDaemon(status, give_up)) status = call();
  if (!status.ok()) return Failed(status);
  return response;
}

absl::StatusOr<v1::Session> Client::StartSession(const std::string& name, v1::Session::Data data,
                                                 const std::string& mode) {
  RETURN_IF_ERROR(text::CheckSessionName(name));
  v1::StartSessionRequest request;
  request.set_name(name);
  request.set_data(data);
  request.set_mode(mode);
  return Call(sessions_.get(), &v1::Sessions::Stub::StartSession, request);
}

absl::StatusOr<v1::Session> Client::StopSession(uint64_t session_id) {
  v1::StopSessionRequest request;
  request.set_session_id(session_id);
  return Call(sessions_.get(), &v1::Sessions::Stub::StopSession, request);
}

absl::StatusOr<v1::Session> Client::StopSessionOfProcess(uint32_t pid) {
  v1::StopSessionRequest request;
  request.set_pid(pid);
  return Call(sessions_.get(), &v1::Sessions::Stub::StopSession, request);
}

absl::StatusOr<v1::AttachResponse> Client::Attach(const v1::AttachRequest& request) {
  RETURN_IF_ERROR(text::CheckSessionName(request.name()));
  return Call(sessions_.get(), &v1::Sessions::Stub::Attach, request);
}

absl::StatusOr<v1::ListProcessesResponse> Client::ListProcesses(bool all) {
  v1::ListProcessesRequest request;
  request.set_all(all);
  return Call(sessions_.get(), &v1::Sessions::Stub::ListProcesses, request);
}

absl::StatusOr<v1::Session> Client::FlushSession(uint64_t session_id) {
  v1::FlushSessionRequest request;
  request.set_session_id(session_id);
  return Call(sessions_.get(), &v1::Sessions::Stub::FlushSession, request);
}

absl::StatusOr<v1::ListSessionsResponse> Client::ListSessions() {
  return Call(sessions_.get(), &v1::Sessions::Stub::ListSessions, v1::ListSessionsRequest());
}

absl::StatusOr<v1::Session> Client::GetSession(uint64_t session_id) {
  absl::StatusOr<v1::ListSessionsResponse> sessions = ListSessions();
  if (!sessions.ok()) return sessions.status();
  for (const v1::Session& session : sessions->sessions()) {
    if (session.id() == session_id) return session;
  }
  return absl::NotFoundError(
      absl::StrCat("session ", session_id, " does not exist (see protonctl sessions)"));
}

absl::StatusOr<v1::ListHistoryResponse> Client::ListHistory(const v1::ListHistoryRequest& request) {
  return Call(query_.get(), &v1::Query::Stub::ListHistory, request);
}

absl::StatusOr<v1::RangeTree> Client::GetRangeTree(const v1::ListHistoryRequest& request) {
  return Call(query_.get(), &v1::Query::Stub::GetRangeTree, request);
}

absl::StatusOr<v1::Tree> Client::GetTree(uint64_t session_id, const std::string& rank,
                                         bool instructions) {
  v1::GetTreeRequest request;
  request.set_rank(rank);
  request.set_session_id(session_id);
  request.set_instructions(instructions);
  return Call(query_.get(), &v1::Query::Stub::GetTree, request);
}

absl::StatusOr<std::string> Client::ViewTree(uint64_t session_id, const std::string& rank,
                                             const v1::ViewOptions& options) {
  v1::ViewTreeRequest request;
  request.set_session_id(session_id);
  request.set_rank(rank);
  *request.mutable_options() = options;
  ASSIGN_OR_RETURN(v1::TreeView view, Call(query_.get(), &v1::Query::Stub::ViewTree, request));
  return std::move(*view.mutable_text());
}

absl::StatusOr<v1::Collectives> Client::GetCollectives(uint64_t session_id) {
  v1::GetCollectivesRequest request;
  request.set_session_id(session_id);
  return Call(query_.get(), &v1::Query::Stub::GetCollectives, request);
}

absl::StatusOr<int64_t> Client::GetClock() {
  ASSIGN_OR_RETURN(const v1::Clock clock,
                   Call(query_.get(), &v1::Query::Stub::GetClock, v1::GetClockRequest()));
  return clock.monotonic_ns();
}

grpc::Status Client::ReadTrace(uint64_t session_id, const TraceProgress& on_chunk,
                               v1::Trace& trace) const {
  v1::GetTraceRequest request;
  request.set_session_id(session_id);
  grpc::ClientContext context;
  Prepare(context);
  std::unique_ptr<grpc::ClientReader<v1::Trace>> reader = query_->GetTrace(&context, request);
  trace.Clear();
  v1::Trace chunk;
  while (reader->Read(&chunk)) {
    trace.MergeFrom(chunk);
    if (on_chunk)
      on_chunk(trace.scope_events_size() + trace.gpu_events_size(), trace.event_count());
  }
  return reader->Finish();
}

absl::StatusOr<v1::Trace> Client::GetTrace(uint64_t session_id, const TraceProgress& on_chunk) {
  const auto give_up = std::chrono::system_clock::now() + std::min(deadline_, kSilentDaemonWait);
  v1::Trace trace;
  grpc::Status status = ReadTrace(session_id, on_chunk, trace);
  if (WaitForSilentDaemon(status, give_up)) status = ReadTrace(session_id, on_chunk, trace);
  if (!status.ok()) return Failed(status);
  return trace;
}

}  // namespace protond::client
