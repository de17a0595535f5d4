// `protond --metrics-listen HOST:PORT`: a tiny HTTP/1.1 server for Prometheus. It answers
// `GET /metrics` with 200 and the text that `render` returns, any other path with 404 and any
// other method with 405, one connection at a time on one thread of its own, and closes each
// connection after its answer. A client gets `request_timeout` for its whole request and answer
// and `max_request_bytes` for its request head, so a slow or hostile one holds the server for two
// seconds at most. No TLS and no authentication: the metrics carry no secrets (docs/cluster.md).
#ifndef PROTOND_DAEMON_METRICS_METRICS_SERVER_H_
#define PROTOND_DAEMON_METRICS_METRICS_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace protond::metrics {

struct MetricsServerOptions {
  std::string listen;  // HOST:PORT, HOST maybe [IPv6]; port 0 takes a free one (see port())
  std::chrono::milliseconds request_timeout{2000};
  size_t max_request_bytes = 8192;
};

class MetricsServer {
 public:
  // Called on the server's thread for each GET /metrics.
  using Render = std::function<std::string()>;

  // Binds and listens (each error names the address), then serves on a thread of its own.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(const MetricsServerOptions& options,
                                                              Render render);
  ~MetricsServer();  // Shutdown()

  int port() const { return port_; }
  // Stops listening; a request under way is finished first (request_timeout at most).
  void Shutdown();

 private:
  MetricsServer(const MetricsServerOptions& options, Render render, int listen_fd, int wake_fd,
                int port);
  void Serve();
  void Answer(int connection_fd);

  const MetricsServerOptions options_;
  const Render render_;
  const int listen_fd_;
  const int wake_fd_;  // an eventfd: Shutdown() makes it readable
  const int port_;
  std::thread thread_;
};

}  // namespace protond::metrics

#endif  // PROTOND_DAEMON_METRICS_METRICS_SERVER_H_
