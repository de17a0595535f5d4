// --tokens FILE as protond serves it: read at start, and read again when protond gets SIGHUP, so
// that a token can be added or taken away without a restart (docs/cluster.md). The TCP API and
// the web page share one TokenFile: a call or a sign-in after a reload is checked against the new
// table. A reload that fails (a bad line, a file others may read) keeps the table in use.
// Thread-safe.
#ifndef PROTOND_DAEMON_SERVER_TOKEN_FILE_H_
#define PROTOND_DAEMON_SERVER_TOKEN_FILE_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/server/token_table.h"

namespace protond::server {

class TokenFile {
 public:
  // Reads `path` (TokenTable::Load); the error names the file and line.
  static absl::StatusOr<std::shared_ptr<TokenFile>> Load(const std::string& path);

  // Reads the file again. On success the new table answers from now on and the count of its
  // tokens is returned; on failure the table in use stays, and the error says why.
  absl::StatusOr<size_t> Reload() ABSL_LOCKS_EXCLUDED(mutex_);

  // TokenTable's, against the table in use.
  absl::StatusOr<TokenTable::Grant> GrantFor(absl::string_view authorization, absl::Time now) const
      ABSL_LOCKS_EXCLUDED(mutex_);
  absl::StatusOr<service::Peer> PeerFor(absl::string_view authorization, absl::Time now) const
      ABSL_LOCKS_EXCLUDED(mutex_);

  const std::string& path() const { return path_; }

 private:
  TokenFile(std::string path, TokenTable table)
      : path_(std::move(path)), table_(std::move(table)) {}

  const std::string path_;
  mutable absl::Mutex mutex_;
  TokenTable table_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::server

#endif  // PROTOND_DAEMON_SERVER_TOKEN_FILE_H_
