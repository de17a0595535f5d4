// protonctl's options for a protond on another machine: `--host HOST:PORT --token-file FILE
// [--tls-ca FILE | --insecure]`, turned into the client's Endpoint. The token file holds the
// token on its first line and must be readable by its owner only, as ssh demands of a key.
#ifndef PROTOND_CLI_REMOTE_ENDPOINT_H_
#define PROTOND_CLI_REMOTE_ENDPOINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "client-lib/cpp/client.h"

namespace protond::cli {

struct RemoteFlags {
  std::string host;        // --host; empty: the local socket
  std::string token_file;  // --token-file
  std::string tls_ca;      // --tls-ca: PEM certificates that may sign the daemon's
  bool insecure = false;   // --insecure: plain TCP (a loopback address of the daemon's)
};

// The endpoint for `flags`, reading the token and CA files; an error names the flag and file.
// `socket` is used when flags.host is empty.
absl::StatusOr<client::Endpoint> ResolveEndpoint(const RemoteFlags& flags,
                                                 const std::string& socket);

}  // namespace protond::cli

#endif  // PROTOND_CLI_REMOTE_ENDPOINT_H_
