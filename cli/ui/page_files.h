// The page's own files (index.html, app.js, app.css, ...), served from one directory: no listing,
// nothing outside it.
#ifndef PROTOND_CLI_UI_PAGE_FILES_H_
#define PROTOND_CLI_UI_PAGE_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace protond::cli::ui {

struct PageFile {
  std::string content_type;
  std::string contents;
};

// The file `path_untrusted` ("/app.js"; "/" is "/index.html") names in `web_dir`. NotFoundError
// for a path with an empty, ".", ".." or hidden (".x") segment, a backslash or a NUL, for a
// directory, and for a file whose real path (links followed) is outside `web_dir`'s real path.
absl::StatusOr<PageFile> ReadPageFile(const std::string& web_dir, absl::string_view path_untrusted);

// By the name's extension: html, js, mjs, css, json, svg, png, ico, woff2, map, txt; anything
// else is application/octet-stream. Text types say charset=utf-8.
std::string ContentTypeOf(absl::string_view name);

// NotFoundError naming the directory when it has no index.html, and how to build the page.
absl::Status CheckPageDirectory(const std::string& web_dir);

}  // namespace protond::cli::ui

#endif  // PROTOND_CLI_UI_PAGE_FILES_H_
