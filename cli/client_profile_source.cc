#include "cli/client_profile_source.h"

#include <string>

#include "common/net/host_name.h"

namespace protond::cli {
namespace {

// The endpoint's host, or this machine's name for the daemon at the local socket.
std::string HostOf(const client::Endpoint& endpoint) {
  return endpoint.host.empty() ? net::LocalHostName() : endpoint.host;
}

}  // namespace

ClientJobNodes::ClientJobNodes(const std::vector<client::Client*>& clients) {
  for (client::Client* client : clients) {
    sources_.push_back(std::make_unique<ClientProfileSource>(*client));
    nodes_.push_back(
        {sources_.back().get(), client->endpoint().Name(), HostOf(client->endpoint())});
  }
}

}  // namespace protond::cli
