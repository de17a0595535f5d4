#include "page_server/http_message.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "view/json/profile_table_json.h"

namespace protond::page_server {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> PercentDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] != '%') {
      out += text[i];
    } else {
      const int high = i + 2 < text.size() ? HexDigit(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad %-escape in the query: '", text.substr(i, 3), "'"));
      }
      out += static_cast<char>(high * 16 + low);
      i += 2;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseQuery(absl::string_view query) {
  std::map<std::string, std::string> parameters;
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    const std::pair<absl::string_view, absl::string_view> split =
        absl::StrSplit(pair, absl::MaxSplits('=', 1));
    absl::StatusOr<std::string> name = PercentDecode(split.first);
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> value = PercentDecode(split.second);
    if (!value.ok()) return value.status();
    parameters.try_emplace(*std::move(name), *std::move(value));
  }
  return parameters;
}

std::string CookieValue(absl::string_view cookie_header, absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(cookie_header, ';')) {
    pair = absl::StripAsciiWhitespace(pair);
    if (absl::ConsumePrefix(&pair, name) && absl::ConsumePrefix(&pair, "=")) {
      return std::string(pair);
    }
  }
  return "";
}

Response JsonError(int status, absl::string_view message) {
  return {status, "application/json", view::DumpJson({{"error", std::string(message)}}), {}};
}

Response AnswerOrJsonError(absl::StatusOr<Response> answer) {
  if (!answer.ok()) return JsonError(HttpStatusOf(answer.status()), answer.status().message());
  return *std::move(answer);
}

bool IsApi(absl::string_view path) { return absl::StartsWith(path, "/api/"); }

bool FromThisOrigin(const Request& request) {
  if (request.origin.empty()) return true;
  absl::string_view authority = request.origin;  // "null" (a sandboxed page) has no scheme
  if (!absl::ConsumePrefix(&authority, "https://") && !absl::ConsumePrefix(&authority, "http://")) {
    return false;
  }
  return !request.host.empty() && absl::EqualsIgnoreCase(authority, request.host);
}

Response ErrorFor(const Request& request, int status, absl::string_view message) {
  if (IsApi(request.path)) return JsonError(status, message);
  return {status, "text/plain; charset=utf-8", absl::StrCat(message, "\n"), {}};
}

// Nothing is cached (the API's data changes, and holds the user's profiles), no guessing of types
// (a download of untrusted names never becomes a page), and no Referer to another site. Not
// "no-referrer": under it a browser sends `Origin: null` even with the page's own POSTs, and
// protond's sign-in and sign-out check that Origin (FromThisOrigin).
void AddCommonHeaders(Response& response, FormAction form_action) {
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "same-origin");
  // The page's own policy (web/static/index.html) again, from the server, so that it also covers
  // what is not the page (an export, an error) and cannot be dropped by an edited index.html;
  // frame-ancestors (no framing, against clickjacking) works only as a header.
  response.headers.emplace_back(
      "Content-Security-Policy",
      absl::StrCat("default-src 'self'; script-src 'self'; style-src 'self'; "
                   "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action ",
                   form_action == FormAction::kSelf ? "'self'" : "'none'",
                   "; frame-ancestors 'none'"));
}

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
      return 400;
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
      return 404;
    default:
      return 502;
  }
}

}  // namespace protond::page_server
