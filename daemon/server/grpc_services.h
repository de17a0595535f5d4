// The gRPC services of protond.v1, each a thin adapter from a call to ProtondService with the
// caller that the transport's PeerResolver names.
#ifndef PROTOND_DAEMON_SERVER_GRPC_SERVICES_H_
#define PROTOND_DAEMON_SERVER_GRPC_SERVICES_H_

#include "daemon/server/peer_resolver.h"
#include "daemon/service/protond_service.h"
#include "protond.grpc.pb.h"

namespace protond::server {

class SessionsService final : public v1::Sessions::Service {
 public:
  SessionsService(service::ProtondService* service, PeerResolver* peers)
      : service_(service), peers_(peers) {}

  grpc::Status StartSession(grpc::ServerContext* context, const v1::StartSessionRequest* request,
                            v1::Session* response) override;
  grpc::Status StopSession(grpc::ServerContext* context, const v1::StopSessionRequest* request,
                           v1::Session* response) override;
  grpc::Status FlushSession(grpc::ServerContext* context, const v1::FlushSessionRequest* request,
                            v1::Session* response) override;
  grpc::Status ListSessions(grpc::ServerContext* context, const v1::ListSessionsRequest* request,
                            v1::ListSessionsResponse* response) override;
  grpc::Status Attach(grpc::ServerContext* context, const v1::AttachRequest* request,
                      v1::AttachResponse* response) override;
  grpc::Status ListProcesses(grpc::ServerContext* context, const v1::ListProcessesRequest* request,
                             v1::ListProcessesResponse* response) override;

 private:
  service::ProtondService* service_;
  PeerResolver* peers_;
};

class QueryService final : public v1::Query::Service {
 public:
  QueryService(service::ProtondService* service, PeerResolver* peers)
      : service_(service), peers_(peers) {}

  grpc::Status GetTree(grpc::ServerContext* context, const v1::GetTreeRequest* request,
                       v1::Tree* response) override;
  grpc::Status ViewTree(grpc::ServerContext* context, const v1::ViewTreeRequest* request,
                        v1::TreeView* response) override;
  grpc::Status GetTrace(grpc::ServerContext* context, const v1::GetTraceRequest* request,
                        grpc::ServerWriter<v1::Trace>* writer) override;
  grpc::Status GetCollectives(grpc::ServerContext* context,
                              const v1::GetCollectivesRequest* request,
                              v1::Collectives* response) override;
  grpc::Status ListHistory(grpc::ServerContext* context, const v1::ListHistoryRequest* request,
                           v1::ListHistoryResponse* response) override;
  grpc::Status GetRangeTree(grpc::ServerContext* context, const v1::ListHistoryRequest* request,
                            v1::RangeTree* response) override;
  grpc::Status GetClock(grpc::ServerContext* context, const v1::GetClockRequest* request,
                        v1::Clock* response) override;

 private:
  service::ProtondService* service_;
  PeerResolver* peers_;
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_GRPC_SERVICES_H_
