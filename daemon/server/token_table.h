// The tokens that let a remote caller use protond over TCP (`protond --tokens FILE`): each names
// the user it acts as and, optionally, the jobs it may touch and when it expires. A call presents
// its token in the `authorization: Bearer TOKEN` header; no token ever appears in a message or a
// log line (they say "line 3's token" instead).
//
// The file, one token per line, fields separated by blanks; `#` starts a comment:
//
//     TOKEN USER [jobs=JOB[,JOB...]] [expires=2026-12-31T00:00:00Z]
//
// TOKEN: 16 to 512 printable ASCII characters without blanks. USER: a user name of this node
// (or a numeric uid) whose sessions and processes the token sees, as that user would on the
// node's socket ("root": all of them). jobs: the SLURM_JOB_ID or pod names it is limited to.
// The file must not be readable or writable by group or others, as ssh demands of its keys.
#ifndef PROTOND_DAEMON_SERVER_TOKEN_TABLE_H_
#define PROTOND_DAEMON_SERVER_TOKEN_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/service/protond_service.h"

namespace protond::server {

class TokenTable {
 public:
  // Reads and checks `path`; the error names the file and line of what is wrong.
  static absl::StatusOr<TokenTable> Load(const std::string& path);
  // The same from text (no permission check): for tests and Load.
  static absl::StatusOr<TokenTable> Parse(absl::string_view text, const std::string& path);

  // What a token grants: who the caller is, and until when.
  struct Grant {
    service::Peer peer;
    absl::Time expires;  // InfiniteFuture() for a token without expires=
  };

  // The caller that `authorization` (the header's value, "Bearer TOKEN") stands for at `now`;
  // UNAUTHENTICATED saying why not (no token, unknown, expired). Compares in constant time.
  absl::StatusOr<Grant> GrantFor(absl::string_view authorization, absl::Time now) const;
  // GrantFor's caller.
  absl::StatusOr<service::Peer> PeerFor(absl::string_view authorization, absl::Time now) const;

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string token;
    uint32_t uid = 0;
    std::string user;
    std::vector<std::string> jobs;
    absl::Time expires = absl::InfiniteFuture();
  };
  explicit TokenTable(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  static absl::StatusOr<Entry> ParseLine(absl::string_view line);

  std::vector<Entry> entries_;
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_TOKEN_TABLE_H_
