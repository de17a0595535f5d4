#include "page_server/page_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace protond::page_server {
namespace {

absl::Status NoSuchFile(absl::string_view path_untrusted) {
  return absl::NotFoundError(absl::StrCat("the page has no file ", path_untrusted));
}

bool SafeSegment(absl::string_view segment) {
  return !segment.empty() && segment[0] != '.' && !absl::StrContains(segment, '\\') &&
         !absl::StrContains(segment, '\0');
}

// The path with links resolved; "" when it does not exist.
std::string RealPath(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> real(realpath(path.c_str(), nullptr), &std::free);
  return real == nullptr ? "" : std::string(real.get());
}

}  // namespace

std::string ContentTypeOf(absl::string_view name) {
  const size_t dot = name.rfind('.');
  const absl::string_view extension = dot == absl::string_view::npos ? "" : name.substr(dot + 1);
  if (extension == "html") return "text/html; charset=utf-8";
  if (extension == "js" || extension == "mjs") return "text/javascript; charset=utf-8";
  if (extension == "css") return "text/css; charset=utf-8";
  if (extension == "json" || extension == "map") return "application/json";
  if (extension == "svg") return "image/svg+xml";
  if (extension == "png") return "image/png";
  if (extension == "ico") return "image/x-icon";
  if (extension == "woff2") return "font/woff2";
  if (extension == "txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

absl::StatusOr<PageFile> ReadPageFile(const std::string& web_dir,
                                      absl::string_view path_untrusted) {
  absl::string_view relative = path_untrusted;
  if (relative == "/") relative = "/index.html";
  if (!absl::ConsumePrefix(&relative, "/")) return NoSuchFile(path_untrusted);
  for (absl::string_view segment : absl::StrSplit(relative, '/')) {
    if (!SafeSegment(segment)) return NoSuchFile(path_untrusted);
  }
  const std::string root = RealPath(web_dir);
  const std::string file = RealPath(absl::StrCat(web_dir, "/", relative));
  struct stat info;
  if (root.empty() || file.empty() || !absl::StartsWith(file, root + "/") ||
      stat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return NoSuchFile(path_untrusted);
  }
  std::ifstream in(file, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read ", file));
  return PageFile{ContentTypeOf(file), std::move(contents)};
}

absl::Status CheckPageDirectory(const std::string& web_dir) {
  struct stat info;
  const std::string index = absl::StrCat(web_dir, "/index.html");
  if (stat(index.c_str(), &info) == 0 && S_ISREG(info.st_mode)) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat(
      "the web page's files are not in ", web_dir,
      " (no index.html): build them with scripts/build_web.sh, or name their directory with "
      "--web-dir DIR"));
}

Response AnswerPageFile(const std::string& web_dir, const Request& request) {
  absl::StatusOr<PageFile> file = ReadPageFile(web_dir, request.path);
  if (!file.ok()) {
    return ErrorFor(request, absl::IsNotFound(file.status()) ? 404 : 500, file.status().message());
  }
  return {200, file->content_type, std::move(file->contents), {}};
}

absl::StatusOr<std::string> DefaultWebDir() {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) return absl::InternalError("cannot find this program's own path");
  const std::filesystem::path bin = std::filesystem::path(std::string(self, length)).parent_path();
  return (bin / "../share/protond/web").lexically_normal().string();
}

}  // namespace protond::page_server
