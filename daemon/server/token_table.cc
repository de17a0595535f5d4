#include "daemon/server/token_table.h"

#include <pwd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/files/read_file.h"
#include "common/status/status_macros.h"

namespace protond::server {
namespace {

constexpr size_t kMinTokenBytes = 16;
constexpr size_t kMaxTokenBytes = 512;

absl::StatusOr<uint32_t> UidOf(const std::string& user) {
  uint32_t uid = 0;
  if (absl::SimpleAtoi(user, &uid)) return uid;
  passwd entry;
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwnam_r(user.c_str(), &entry, buffer, sizeof(buffer), &found) != 0 || found == nullptr) {
    return absl::NotFoundError(absl::StrCat("no user '", user, "' on this node"));
  }
  return found->pw_uid;
}

absl::Status CheckToken(absl::string_view token) {
  if (token.size() < kMinTokenBytes || token.size() > kMaxTokenBytes) {
    return absl::InvalidArgumentError(absl::StrCat("its token has ", token.size(), " characters; ",
                                                   kMinTokenBytes, " to ", kMaxTokenBytes,
                                                   " are needed"));
  }
  for (const char c : token) {
    if (c <= ' ' || c > '~') {
      return absl::InvalidArgumentError("its token has a character outside printable ASCII");
    }
  }
  return absl::OkStatus();
}

// Equal without an early exit, so the time taken says nothing of where two tokens differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace

absl::StatusOr<TokenTable::Entry> TokenTable::ParseLine(absl::string_view line) {
  const std::vector<absl::string_view> fields =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() < 2) return absl::InvalidArgumentError("it needs a token and a user");
  Entry entry;
  RETURN_IF_ERROR(CheckToken(fields[0]));
  entry.token = std::string(fields[0]);
  entry.user = std::string(fields[1]);
  ASSIGN_OR_RETURN(entry.uid, UidOf(entry.user));
  for (size_t i = 2; i < fields.size(); ++i) {
    absl::string_view field = fields[i];
    if (absl::ConsumePrefix(&field, "jobs=")) {
      entry.jobs = absl::StrSplit(field, ',', absl::SkipEmpty());
      if (entry.jobs.empty()) return absl::InvalidArgumentError("jobs= names no job");
    } else if (absl::ConsumePrefix(&field, "expires=")) {
      std::string error;
      if (!absl::ParseTime(absl::RFC3339_full, field, &entry.expires, &error)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expires=", field, " is not a time like 2026-12-31T00:00:00Z (", error, ")"));
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("'", field, "' is neither jobs=... nor expires=..."));
    }
  }
  return entry;
}

absl::StatusOr<TokenTable> TokenTable::Parse(absl::string_view text, const std::string& path) {
  std::vector<Entry> entries;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    absl::StatusOr<Entry> entry = ParseLine(line);
    if (!entry.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("tokens file ", path, " line ", line_number,
                                                     ": ", entry.status().message()));
    }
    for (const Entry& earlier : entries) {
      if (earlier.token == entry->token) {
        return absl::InvalidArgumentError(absl::StrCat("tokens file ", path, " line ", line_number,
                                                       ": its token is given twice"));
      }
    }
    entries.push_back(*std::move(entry));
  }
  if (entries.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("tokens file ", path, " has no token"));
  }
  return TokenTable(std::move(entries));
}

absl::StatusOr<TokenTable> TokenTable::Load(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, files::ReadPrivateFile(path, "tokens file"));
  return Parse(text, path);
}

absl::StatusOr<TokenTable::Grant> TokenTable::GrantFor(absl::string_view authorization,
                                                       absl::Time now) const {
  absl::string_view token = authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ") || token.empty()) {
    return absl::UnauthenticatedError(
        "no token: protond over TCP needs one (protonctl --token-file FILE)");
  }
  const Entry* found = nullptr;
  for (const Entry& entry : entries_) {
    if (ConstantTimeEquals(entry.token, token)) found = &entry;
  }
  if (found == nullptr) return absl::UnauthenticatedError("this token is not accepted here");
  if (now >= found->expires) {
    return absl::UnauthenticatedError(
        absl::StrCat("this token expired at ",
                     absl::FormatTime(absl::RFC3339_sec, found->expires, absl::UTCTimeZone())));
  }
  service::Peer peer;
  peer.uid = found->uid;
  peer.remote = true;
  peer.jobs = found->jobs;
  return Grant{std::move(peer), found->expires};
}

absl::StatusOr<service::Peer> TokenTable::PeerFor(absl::string_view authorization,
                                                  absl::Time now) const {
  absl::StatusOr<Grant> grant = GrantFor(authorization, now);
  if (!grant.ok()) return grant.status();
  return std::move(grant->peer);
}

}  // namespace protond::server
