#include "cli/remote_endpoint.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/files/read_file.h"
#include "common/status/status_macros.h"

namespace protond::cli {
namespace {

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, files::ReadPrivateFile(path, "--token-file"));
  const std::string token(absl::StripAsciiWhitespace(text.substr(0, text.find('\n'))));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--token-file ", path, " has no token on its first line"));
  }
  return token;
}

}  // namespace

absl::StatusOr<client::Endpoint> ResolveEndpoint(const RemoteFlags& flags,
                                                 const std::string& socket) {
  client::Endpoint endpoint;
  if (flags.host.empty()) {
    if (!flags.token_file.empty() || !flags.tls_ca.empty() || flags.insecure) {
      return absl::InvalidArgumentError("--token-file, --tls-ca and --insecure go with --host");
    }
    endpoint.socket_path = socket;
    return endpoint;
  }
  if (!absl::StrContains(flags.host, ':')) {
    return absl::InvalidArgumentError(
        absl::StrCat("--host ", flags.host, " needs a port: HOST:PORT (protond --listen's)"));
  }
  if (flags.token_file.empty()) {
    return absl::InvalidArgumentError(
        "--host needs --token-file FILE: a remote protond takes "
        "calls with a token only");
  }
  if (flags.insecure && !flags.tls_ca.empty()) {
    return absl::InvalidArgumentError("--insecure and --tls-ca: choose one");
  }
  endpoint.host = flags.host;
  endpoint.insecure = flags.insecure;
  ASSIGN_OR_RETURN(endpoint.token, ReadToken(flags.token_file));
  if (!flags.tls_ca.empty()) {
    ASSIGN_OR_RETURN(endpoint.tls_ca_pem, files::ReadWholeFile(flags.tls_ca, "--tls-ca"));
    if (!absl::StrContains(endpoint.tls_ca_pem, "-----BEGIN CERTIFICATE-----")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tls-ca ", flags.tls_ca, " holds no PEM certificate"));
    }
  }
  return endpoint;
}

}  // namespace protond::cli
