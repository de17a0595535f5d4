// The page's own files (index.html, app.js, app.css, ...), served from one directory: no listing,
// nothing outside it.
#ifndef PROTOND_PAGE_SERVER_PAGE_FILES_H_
#define PROTOND_PAGE_SERVER_PAGE_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "page_server/http_message.h"

namespace protond::page_server {

struct PageFile {
  std::string content_type;
  std::string contents;
};

// The file `path_untrusted` ("/app.js"; "/" is "/index.html") names in `web_dir`. NotFoundError
// for a path with an empty, ".", ".." or hidden (".x") segment, a backslash or a NUL, for a
// directory, and for a file whose real path (links followed) is outside `web_dir`'s real path.
absl::StatusOr<PageFile> ReadPageFile(const std::string& web_dir, absl::string_view path_untrusted);

// The answer to a request for one of the page's files: 200 with it, else 404 (or 500) as text.
Response AnswerPageFile(const std::string& web_dir, const Request& request);

// By the name's extension: html, js, mjs, css, json, svg, png, ico, woff2, map, txt; anything
// else is application/octet-stream. Text types say charset=utf-8.
std::string ContentTypeOf(absl::string_view name);

// <directory of this program>/../share/protond/web (written without the ".."), where the build
// tree and an install keep the page's files beside protonctl and protond.
absl::StatusOr<std::string> DefaultWebDir();

// NotFoundError naming the directory when it has no index.html, and how to build the page.
absl::Status CheckPageDirectory(const std::string& web_dir);

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_PAGE_FILES_H_
