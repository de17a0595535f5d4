#include "daemon/server/token_file.h"

#include "common/status/status_macros.h"

namespace protond::server {

absl::StatusOr<std::shared_ptr<TokenFile>> TokenFile::Load(const std::string& path) {
  ASSIGN_OR_RETURN(TokenTable table, TokenTable::Load(path));
  return std::shared_ptr<TokenFile>(new TokenFile(path, std::move(table)));
}

absl::StatusOr<size_t> TokenFile::Reload() {
  // Read outside the lock: calls go on being checked against the old table meanwhile.
  ASSIGN_OR_RETURN(TokenTable table, TokenTable::Load(path_));
  const size_t size = table.size();
  absl::MutexLock lock(&mutex_);
  table_ = std::move(table);
  return size;
}

absl::StatusOr<TokenTable::Grant> TokenFile::GrantFor(absl::string_view authorization,
                                                      absl::Time now) const {
  absl::ReaderMutexLock lock(&mutex_);
  return table_.GrantFor(authorization, now);
}

absl::StatusOr<service::Peer> TokenFile::PeerFor(absl::string_view authorization,
                                                 absl::Time now) const {
  absl::ReaderMutexLock lock(&mutex_);
  return table_.PeerFor(authorization, now);
}

}  // namespace protond::server
