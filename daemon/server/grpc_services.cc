#include "daemon/server/grpc_services.h"

#include "common/clock/tsc_clock.h"

namespace protond::server {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

// Resolves the caller, or answers UNAUTHENTICATED saying why it is not known.
#define RESOLVE_PEER(var)                                        \
  absl::StatusOr<service::Peer> var = peers_->Resolve(*context); \
  if (!var.ok()) return ToGrpc(var.status());

template <typename Message>
grpc::Status Answer(absl::StatusOr<Message> result, Message* response) {
  if (!result.ok()) return ToGrpc(result.status());
  *response = std::move(*result);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status SessionsService::StartSession(grpc::ServerContext* context,
                                           const v1::StartSessionRequest* request,
                                           v1::Session* response) {
  RESOLVE_PEER(peer);
  return Answer(service_->StartSession(*peer, request->name(), request->data(), request->mode()),
                response);
}

grpc::Status SessionsService::StopSession(grpc::ServerContext* context,
                                          const v1::StopSessionRequest* request,
                                          v1::Session* response) {
  RESOLVE_PEER(peer);
  uint64_t session_id = request->session_id();
  if (session_id == 0 && request->pid() != 0) {
    absl::StatusOr<uint64_t> found = service_->SessionOfProcess(*peer, request->pid());
    if (!found.ok()) return ToGrpc(found.status());
    session_id = *found;
  }
  return Answer(service_->StopSession(*peer, session_id), response);
}

grpc::Status SessionsService::Attach(grpc::ServerContext* context, const v1::AttachRequest* request,
                                     v1::AttachResponse* response) {
  RESOLVE_PEER(peer);
  return Answer(service_->Attach(*peer, *request), response);
}

grpc::Status SessionsService::ListProcesses(grpc::ServerContext* context,
                                            const v1::ListProcessesRequest* request,
                                            v1::ListProcessesResponse* response) {
  RESOLVE_PEER(peer);
  *response = service_->ListProcesses(*peer, request->all());
  return grpc::Status::OK;
}

grpc::Status SessionsService::FlushSession(grpc::ServerContext* context,
                                           const v1::FlushSessionRequest* request,
                                           v1::Session* response) {
  RESOLVE_PEER(peer);
  return Answer(service_->FlushSession(*peer, request->session_id()), response);
}

grpc::Status SessionsService::ListSessions(grpc::ServerContext* context,
                                           const v1::ListSessionsRequest*,
                                           v1::ListSessionsResponse* response) {
  RESOLVE_PEER(peer);
  *response = service_->ListSessions(*peer);
  return grpc::Status::OK;
}

grpc::Status QueryService::GetTree(grpc::ServerContext* context, const v1::GetTreeRequest* request,
                                   v1::Tree* response) {
  RESOLVE_PEER(peer);
  return Answer(
      service_->GetTree(*peer, request->session_id(), request->rank(), request->instructions()),
      response);
}

grpc::Status QueryService::ListHistory(grpc::ServerContext* context,
                                       const v1::ListHistoryRequest* request,
                                       v1::ListHistoryResponse* response) {
  RESOLVE_PEER(peer);
  return Answer(service_->ListHistory(*peer, *request), response);
}

grpc::Status QueryService::GetRangeTree(grpc::ServerContext* context,
                                        const v1::ListHistoryRequest* request,
                                        v1::RangeTree* response) {
  RESOLVE_PEER(peer);
  return Answer(service_->GetRangeTree(*peer, *request), response);
}

grpc::Status QueryService::ViewTree(grpc::ServerContext* context,
                                    const v1::ViewTreeRequest* request, v1::TreeView* response) {
  RESOLVE_PEER(peer);
  absl::StatusOr<std::string> text = service_->ViewTree(*peer, *request);
  if (!text.ok()) return ToGrpc(text.status());
  response->set_text(std::move(*text));
  return grpc::Status::OK;
}

grpc::Status QueryService::GetTrace(grpc::ServerContext* context,
                                    const v1::GetTraceRequest* request,
                                    grpc::ServerWriter<v1::Trace>* writer) {
  RESOLVE_PEER(peer);
  absl::StatusOr<std::vector<v1::Trace>> chunks = service_->GetTrace(*peer, request->session_id());
  if (!chunks.ok()) return ToGrpc(chunks.status());
  for (const v1::Trace& chunk : *chunks) {
    if (!writer->Write(chunk)) return grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
  }
  return grpc::Status::OK;
}

grpc::Status QueryService::GetCollectives(grpc::ServerContext* context,
                                          const v1::GetCollectivesRequest* request,
                                          v1::Collectives* response) {
  RESOLVE_PEER(peer);
  return Answer(service_->GetCollectives(*peer, request->session_id()), response);
}

// Answered here rather than by ProtondService: a clock reading must not wait behind the service's
// mutex (a commit), which would lengthen the round trip that bounds the offset's error.
grpc::Status QueryService::GetClock(grpc::ServerContext* context, const v1::GetClockRequest*,
                                    v1::Clock* response) {
  RESOLVE_PEER(peer);
  response->set_monotonic_ns(static_cast<int64_t>(clock::MonotonicNs()));
  return grpc::Status::OK;
}

}  // namespace protond::server
