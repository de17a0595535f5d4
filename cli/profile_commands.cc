#include "cli/profile_commands.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "cli/arg_reader.h"
#include "cli/client_profile_source.h"
#include "cli/collective_calls.h"
#include "cli/follow.h"
#include "common/status/status_macros.h"
#include "common/text/count.h"
#include "page_server/window_range.h"
#include "view/hatchet/hatchet_reader.h"
#include "view/jobs/collective_table.h"
#include "view/jobs/collective_tree.h"
#include "view/jobs/match.h"
#include "view/jobs/plugin_records.h"
#include "view/jobs/validate.h"
#include "view/render/metric_spec.h"
#include "view/tree/share_shift.h"
#include "view/tree/top_collectives.h"
#include "view/tree/top_stalls.h"

namespace protond::cli {
namespace {

absl::Status Usage(const std::string& message) { return absl::InvalidArgumentError(message); }

// -t: a number, or a percentage ("5%").
absl::StatusOr<double> ParseThreshold(const std::string& text) {
  absl::string_view number = text;
  const bool percent = absl::ConsumeSuffix(&number, "%");
  double threshold;
  if (!absl::SimpleAtod(number, &threshold)) {
    return Usage(absl::StrCat("-t needs a number or a percentage, not '", text, "'"));
  }
  return percent ? threshold / 100 : threshold;
}

// --pid, --job, --command, --since and --until: the windows of `tree`'s range; after
// `--diff --since T`, --since and --until are the compared range's.
absl::StatusOr<bool> ParseRangeOption(ArgReader& reader, absl::Time now, TreeArgs* parsed) {
  if (reader.Is("--job")) return false;  // a range's only with --since and the others
  if (parsed->diff_range && !reader.Is("--since", "--until")) {
    if (!reader.Is("--pid", "--command")) return false;
    return Usage(
        "--pid, --job and --command go before --diff: both ranges are of the same windows");
  }
  HistoryArgs* into = parsed->diff_range ? &parsed->diff_windows : &parsed->windows;
  ASSIGN_OR_RETURN(const bool known, ParseWindowOption(reader, now, into));
  if (known && !parsed->diff_range) parsed->window_range = true;
  return known;
}

absl::Status ParseTreeOption(ArgReader& reader, absl::Time now, TreeArgs* parsed) {
  ASSIGN_OR_RETURN(const bool range_option, ParseRangeOption(reader, now, parsed));
  if (range_option) return absl::OkStatus();
  view::ViewOptions& view = parsed->view;
  if (reader.Is("-m", "--metrics")) {
    ASSIGN_OR_RETURN(view.metrics, reader.Value());
  } else if (reader.Is("-d", "--depth")) {
    ASSIGN_OR_RETURN(const std::string depth, reader.Value());
    ASSIGN_OR_RETURN(view.depth, text::ParseCount("-d", depth));
  } else if (reader.Is("-t", "--threshold")) {
    ASSIGN_OR_RETURN(const std::string text, reader.Value());
    ASSIGN_OR_RETURN(view.threshold, ParseThreshold(text));
  } else if (reader.Is("-i", "--include")) {
    ASSIGN_OR_RETURN(view.include, reader.Value());
  } else if (reader.Is("-e", "--exclude")) {
    ASSIGN_OR_RETURN(view.exclude, reader.Value());
  } else if (reader.Is("-f", "--format")) {
    ASSIGN_OR_RETURN(const std::string format, reader.Value());
    ASSIGN_OR_RETURN(view.format, view::ParseFrameFormat(format));
  } else if (reader.Is("--diff", "-diff")) {
    ASSIGN_OR_RETURN(const std::string other, reader.Value());
    if (other == "--since" || other == "--until") {  // the reader now stands on it
      parsed->diff_range = true;
      return ParseRangeOption(reader, now, parsed).status();
    }
    parsed->diff_profile = other;
  } else if (reader.Is("--print-sorted", "--print_sorted")) {
    view.print_sorted = true;
  } else if (reader.Is("--full-names", "--mangled")) {
    RETURN_IF_ERROR(view::ChooseKernelNames(reader.arg(), &view.kernel_names));
  } else if (reader.Is("-l", "--list")) {
    parsed->list_metrics = true;
  } else if (reader.Is("--rank")) {
    ASSIGN_OR_RETURN(parsed->rank, reader.Value());
  } else if (reader.Is("--job")) {
    ASSIGN_OR_RETURN(parsed->job, reader.Value());
  } else if (reader.Is("--follow")) {
    parsed->follow = true;
  } else {
    return reader.Profile(&parsed->profile);
  }
  return absl::OkStatus();
}

}  // namespace

bool IsSessionId(const std::string& profile) {
  return !profile.empty() && std::all_of(profile.begin(), profile.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
}

absl::StatusOr<v1::Tree> LoadProfile(client::Client& client, const std::string& profile,
                                     const std::string& rank, bool instructions) {
  const bool session = IsSessionId(profile);
  if (!session && !rank.empty()) {
    return Usage(absl::StrCat("--rank needs a session, not the file ", profile));
  }
  if (!session) return view::ReadHatchetFile(profile);
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(profile));
  return client.GetTree(id, rank, instructions);
}

namespace {

// A tree over a range of windows: the range's own checks, and no option that needs a session.
absl::Status CheckWindowRangeArgs(TreeArgs* parsed) {
  if (!parsed->profile.empty()) {
    return Usage(absl::StrCat("tree takes a profile (", parsed->profile,
                              ") or a range of always-on windows, not both"));
  }
  if (parsed->follow || !parsed->rank.empty() || !parsed->diff_profile.empty()) {
    return Usage("a range of always-on windows takes no --follow, --rank or --diff PROFILE");
  }
  parsed->windows.job = std::exchange(parsed->job, "");
  RETURN_IF_ERROR(CheckWindowSelection(parsed->windows));
  if (!parsed->diff_range) return absl::OkStatus();
  if (parsed->list_metrics) return Usage("-l cannot be used with --diff --since");
  parsed->diff_windows.pid = parsed->windows.pid;
  parsed->diff_windows.job = parsed->windows.job;
  parsed->diff_windows.command = parsed->windows.command;
  RETURN_IF_ERROR(CheckWindowSelection(parsed->diff_windows));
  const double threshold = parsed->view.threshold.value_or(view::kDefaultShareThreshold);
  if (!(threshold >= 0 && threshold < 1)) {
    return Usage(absl::StrCat("-t with --diff --since is a share of the GPU time below 100%, not '",
                              threshold * 100, "%'"));
  }
  parsed->view.threshold = threshold;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TreeArgs> ParseTreeArgs(const std::vector<std::string>& args, absl::Time now) {
  TreeArgs parsed;
  ArgReader reader(args);
  while (reader.Next()) RETURN_IF_ERROR(ParseTreeOption(reader, now, &parsed));
  if (parsed.diff_range && !parsed.window_range) {
    return Usage(
        "--diff --since compares two ranges of always-on windows: give the first with "
        "--since (and --pid, --job or --command) before --diff");
  }
  if (parsed.window_range) {
    RETURN_IF_ERROR(CheckWindowRangeArgs(&parsed));
    return parsed;
  }
  if (!parsed.job.empty()) {
    if (!parsed.profile.empty()) return Usage("tree takes a profile or --job JOB, not both");
    const view::ViewOptions defaults;
    if (!parsed.diff_profile.empty() || parsed.follow || !parsed.rank.empty() ||
        parsed.list_metrics || parsed.view.threshold || !parsed.view.include.empty() ||
        !parsed.view.exclude.empty() || parsed.view.print_sorted ||
        parsed.view.format != defaults.format) {
      return Usage("tree --job takes -m, -d, --full-names and --mangled only");
    }
    return parsed;
  }
  if (parsed.profile.empty()) {
    return Usage("tree needs a session id, a Hatchet file or --job JOB");
  }
  if (!parsed.view.include.empty() && !parsed.view.exclude.empty()) {
    return Usage("-i and -e cannot be used together");
  }
  if (parsed.follow && !IsSessionId(parsed.profile)) {
    return Usage(absl::StrCat("--follow needs a session, not the file ", parsed.profile));
  }
  if (parsed.follow && parsed.list_metrics) return Usage("-l cannot be used with --follow");
  return parsed;
}

namespace {

absl::StatusOr<std::string> RenderWindowRange(client::Client& client, const TreeArgs& args) {
  ClientProfileSource source(client);
  ASSIGN_OR_RETURN(page_server::WindowRange now,
                   page_server::LoadWindowRange(source, args.windows));
  if (args.list_metrics) {
    return absl::StrCat(absl::StrJoin(view::AvailableMetricNames(now.tree), "\n"), "\n");
  }
  if (!args.diff_range) {
    ASSIGN_OR_RETURN(const std::string tree, view::RenderProfile(std::move(now.tree), args.view));
    return absl::StrCat(now.heading, "\n", tree);
  }
  ASSIGN_OR_RETURN(const page_server::WindowRange then,
                   page_server::LoadWindowRange(source, args.diff_windows));
  const double threshold = *args.view.threshold;
  ASSIGN_OR_RETURN(const view::ShareShifts shifts,
                   view::FindShareShifts(now.tree, then.tree, threshold));
  return absl::StrCat("now:  ", now.heading, "then: ", then.heading, "\n",
                      view::RenderShareShifts(shifts, threshold, args.view.kernel_names));
}

}  // namespace

namespace {

// A session's tree with its NCCL collective calls under their scopes (collective_tree.h), when it
// has any; else the tree as it is. A diff compares the daemon's trees alone.
absl::StatusOr<v1::Tree> LoadTree(client::Client& client, const TreeArgs& args,
                                  const v1::Collectives& collectives) {
  const bool instructions = args.view.format == view::FrameFormat::kSass;
  ASSIGN_OR_RETURN(v1::Tree tree, LoadProfile(client, args.profile, args.rank, instructions));
  if (collectives.events_size() == 0) return tree;
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
  ASSIGN_OR_RETURN(const v1::Session session, client.GetSession(id));
  return view::AddSessionCollectiveNodes(session, args.rank, std::move(tree), collectives);
}

}  // namespace

absl::StatusOr<std::string> RenderTreeCommand(client::Client& client, const TreeArgs& args) {
  if (args.window_range) return RenderWindowRange(client, args);
  v1::Collectives collectives;
  if (IsSessionId(args.profile) && args.diff_profile.empty()) {
    ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
    ASSIGN_OR_RETURN(collectives, ReadCollectives(client, id));
    // A session's own view comes rendered by the daemon, which has its tree at hand
    // (protond.proto's ViewTree); its collective calls, -l and --full-names (ViewOptions has no
    // field for it) are done here, as are a file and a diff.
    if (collectives.events_size() == 0 && !args.list_metrics &&
        args.view.kernel_names != view::KernelNames::kFull) {
      return client.ViewTree(id, args.rank, view::ViewOptionsToProto(args.view));
    }
  }
  ASSIGN_OR_RETURN(v1::Tree tree, LoadTree(client, args, collectives));
  if (args.list_metrics) {
    return absl::StrCat(absl::StrJoin(view::AvailableMetricNames(tree), "\n"), "\n");
  }
  if (args.diff_profile.empty()) return view::RenderProfile(std::move(tree), args.view);
  const bool instructions = args.view.format == view::FrameFormat::kSass;
  ASSIGN_OR_RETURN(const v1::Tree base, LoadProfile(client, args.diff_profile, "", instructions));
  return view::RenderProfile(std::move(tree), args.view, &base);
}

namespace {

std::string FollowHeading(const v1::Session& session, absl::Duration interval) {
  const bool running = session.state() == v1::Session::RUNNING;
  std::string heading =
      absl::StrCat("session ", session.id(), " (", session.name(), "), ",
                   running ? "running" : "stopped", ": ", session.records(), " records");
  if (session.dropped_records() > 0) {
    absl::StrAppend(&heading, ", ", session.dropped_records(), " dropped");
  }
  if (running) {
    absl::StrAppend(&heading, "; redrawn every ", absl::FormatDuration(interval),
                    ", Ctrl-C leaves the session running");
  }
  return absl::StrCat(heading, "\n\n");
}

}  // namespace

absl::Status FollowTree(client::Client& client, const TreeArgs& args, absl::Duration interval,
                        const std::function<bool()>& keep_going,
                        const std::function<void(const std::string& frame)>& show) {
  ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
  return FollowFrames(
      interval,
      [&]() -> absl::StatusOr<FollowFrame> {
        // The state before the tree: a session seen running may stop while its tree is read,
        // and then one more frame shows all of it.
        ASSIGN_OR_RETURN(const v1::Session before, client.GetSession(id));
        ASSIGN_OR_RETURN(const std::string tree, RenderTreeCommand(client, args));
        return FollowFrame{FollowHeading(before, interval) + tree,
                           before.state() == v1::Session::RUNNING};
      },
      keep_going, show);
}

absl::StatusOr<TopArgs> ParseTopArgs(const std::vector<std::string>& args) {
  TopArgs parsed;
  ArgReader reader(args);
  while (reader.Next()) {
    if (reader.Is("-n", "--limit")) {
      ASSIGN_OR_RETURN(const std::string limit, reader.Value());
      ASSIGN_OR_RETURN(parsed.limit, text::ParseCount("-n", limit));
    } else if (reader.Is("--full-names", "--mangled")) {
      RETURN_IF_ERROR(view::ChooseKernelNames(reader.arg(), &parsed.kernel_names));
    } else if (reader.Is("--stalls")) {
      parsed.stalls = true;
    } else if (reader.Is("--collectives")) {
      parsed.collectives = true;
    } else {
      RETURN_IF_ERROR(reader.Profile(&parsed.profile));
    }
  }
  if (parsed.profile.empty()) return Usage("top needs a session id or a Hatchet file");
  if (parsed.stalls && parsed.collectives) {
    return Usage("--stalls and --collectives are two different tables: ask for one");
  }
  return parsed;
}

std::string RenderPluginTopCollectives(const v1::Collectives& collectives, int limit) {
  const view::PluginSession session{nullptr, &collectives, ""};
  const view::ValidatedCollectives valid =
      view::ValidateCollectives(view::CollectivesFromPlugin({&session, 1}, ""), "");
  std::string out = absl::StrCat(
      "NCCL collective calls from NCCL's profiler plugin, matched by communicator and call "
      "number:\n",
      view::RenderCollectiveTable(view::MatchCollectives(valid.records, {}), true,
                                  static_cast<size_t>(std::max(limit, 0))));
  if (const uint64_t rejected = valid.stats.TotalRejected(); rejected > 0) {
    absl::StrAppend(&out, rejected, rejected == 1 ? " call" : " calls",
                    " left out as invalid: protonctl job says why\n");
  }
  return out;
}

absl::StatusOr<std::string> RenderTopCommand(client::Client& client, const TopArgs& args) {
  if (args.collectives && IsSessionId(args.profile)) {
    ASSIGN_OR_RETURN(const uint64_t id, ParseSessionId(args.profile));
    ASSIGN_OR_RETURN(const v1::Collectives collectives, client.GetCollectives(id));
    if (collectives.events_size() > 0) return RenderPluginTopCollectives(collectives, args.limit);
  }
  ASSIGN_OR_RETURN(const v1::Tree tree, LoadProfile(client, args.profile));
  if (args.stalls) return view::RenderTopStalls(tree, args.limit);
  if (args.collectives) return view::RenderTopCollectives(tree, args.limit);
  return view::RenderTopKernels(tree, args.limit, args.kernel_names);
}

}  // namespace protond::cli
