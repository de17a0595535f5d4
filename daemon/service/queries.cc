// ProtondService: the queries. They read what the last cycle published and the store as last
// committed, never waiting for a cycle.
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/status_macros.h"
#include "daemon/query/collective_query.h"
#include "daemon/query/trace_query.h"
#include "daemon/query/tree_query.h"
#include "daemon/service/protond_service.h"
#include "view/history/window_selection.h"
#include "view/tree/profile_view.h"
#include "view/tree/tree_merge.h"

namespace protond::service {
namespace {

// The session's processes whose RANK is `rank`, from the store; NotFound naming its ranks.
absl::StatusOr<std::vector<uint64_t>> ProcessesOfRank(store::Store& store, uint64_t session_id,
                                                      const std::string& rank) {
  ASSIGN_OR_RETURN(const std::vector<store::SessionProcessRow> members,
                   store.ListSessionProcesses(session_id));
  std::vector<uint64_t> matching;
  std::set<std::string> ranks;
  for (const store::SessionProcessRow& member : members) {
    ASSIGN_OR_RETURN(const std::optional<store::ProcessRow> process,
                     store.GetProcess(member.process_id));
    if (!process) continue;
    if (process->job.rank == rank) matching.push_back(member.process_id);
    if (!process->job.rank.empty()) ranks.insert(process->job.rank);
  }
  if (matching.empty()) {
    return absl::NotFoundError(
        absl::StrCat("session ", session_id, " has no process of rank ", rank,
                     ranks.empty() ? " (its processes have no RANK)"
                                   : " (its ranks: " + absl::StrJoin(ranks, ", ") + ")"));
  }
  return matching;
}

}  // namespace

v1::ListSessionsResponse ProtondService::ListSessions(const Peer& peer) {
  v1::ListSessionsResponse response;
  // Held here: a range-for over `*published_.Get()` would let the list go while it is read,
  // once the next cycle publishes another (found by ASan in the integration tests).
  const std::shared_ptr<const sessions::PublishedList> published = published_.Get();
  for (const auto& session : *published) {
    if (MayTouch(peer, *session)) *response.add_sessions() = session->proto;
  }
  return response;
}

absl::StatusOr<v1::ListHistoryResponse> ProtondService::ListHistory(
    const Peer& peer, const v1::ListHistoryRequest& request) {
  ASSIGN_OR_RETURN(const view::WindowSelection selection, view::WindowSelection::Of(request));
  // Held while read, as in ListSessions.
  const std::shared_ptr<const sessions::PublishedList> published = published_.Get();
  std::vector<const v1::Session*> windows;
  uint64_t total_windows = 0;
  for (const auto& session : *published) {
    if (!session->proto.always_on_window() || !MayTouch(peer, *session)) continue;
    ++total_windows;
    if (selection.Selects(session->proto)) windows.push_back(&session->proto);
  }
  view::SortOldestFirst(windows);
  v1::ListHistoryResponse response;
  for (const v1::Session* window : windows) *response.add_windows() = *window;
  response.set_total_windows(total_windows);
  return response;
}

absl::StatusOr<v1::RangeTree> ProtondService::GetRangeTree(const Peer& peer,
                                                           const v1::ListHistoryRequest& request) {
  ASSIGN_OR_RETURN(v1::ListHistoryResponse listed, ListHistory(peer, request));
  v1::RangeTree range;
  if (listed.windows().empty()) return range;
  // Merged a batch at a time, the sum so far first in the next batch: a day of windows of
  // thousands of frames each is never all in memory at once.
  constexpr size_t kMergeBatch = 64;
  std::vector<v1::Tree> pending;
  uint64_t first_pending_id = 0;
  const auto merge_pending = [&]() -> absl::Status {
    absl::StatusOr<v1::Tree> merged = view::MergeTrees(pending);
    if (!merged.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the windows from ", first_pending_id, " on: ", merged.status().message()));
    }
    pending.clear();
    pending.push_back(*std::move(merged));
    return absl::OkStatus();
  };
  for (const v1::Session& window : listed.windows()) {
    ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, window.id()));
    ASSIGN_OR_RETURN(const std::shared_ptr<const v1::Tree> tree,
                     TreeOf(*session, "", /*instructions=*/false, /*keep=*/false));
    if (pending.size() <= 1) first_pending_id = window.id();
    pending.push_back(*tree);
    if (pending.size() > kMergeBatch) RETURN_IF_ERROR(merge_pending());
  }
  RETURN_IF_ERROR(merge_pending());
  *range.mutable_tree() = std::move(pending.front());
  *range.mutable_windows() = std::move(*listed.mutable_windows());
  return range;
}

absl::StatusOr<v1::Tree> ProtondService::GetTree(const Peer& peer, uint64_t session_id,
                                                 const std::string& rank, bool instructions) {
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, session_id));
  ASSIGN_OR_RETURN(const std::shared_ptr<const v1::Tree> tree,
                   TreeOf(*session, rank, instructions));
  return *tree;
}

absl::StatusOr<std::string> ProtondService::ViewTree(const Peer& peer,
                                                     const v1::ViewTreeRequest& request) {
  ASSIGN_OR_RETURN(const view::ViewOptions options, view::ViewOptionsFromProto(request.options()));
  const std::string view_key = request.options().SerializeAsString();
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, request.session_id()));
  ASSIGN_OR_RETURN(
      const std::shared_ptr<const v1::Tree> tree,
      TreeOf(*session, request.rank(), request.options().format() == v1::ViewOptions::SASS));
  if (std::optional<std::string> kept = kept_trees_.View(tree, view_key)) return *kept;
  // Rendered without a lock: the tree is shared and never changed.
  ASSIGN_OR_RETURN(std::string text, view::RenderProfile(*tree, options));
  kept_trees_.KeepView(tree, view_key, text);
  return text;
}

absl::StatusOr<std::shared_ptr<const v1::Tree>> ProtondService::TreeOf(
    const sessions::PublishedSession& session, const std::string& rank, bool instructions,
    bool keep) {
  const uint64_t session_id = session.proto.id();
  const query::KeptTrees::Question question{session_id, rank, instructions};
  const query::KeptTrees::Found kept = kept_trees_.Find(question, std::chrono::steady_clock::now());
  if (kept.tree != nullptr) return kept.tree;
  ASSIGN_OR_RETURN(query::StoreReaders::Lease reader, readers_.Take());
  ASSIGN_OR_RETURN(store::StoredTree stored, reader->LoadTree(session_id));
  if (!rank.empty()) {
    ASSIGN_OR_RETURN(const std::vector<uint64_t> processes,
                     ProcessesOfRank(*reader, session_id, rank));
    query::KeepProcesses(processes, stored);
  }
  std::vector<std::string> notes;
  if (instructions) {
    std::vector<query::CubinWork> work = instruction_texts_.Missing(stored);
    for (query::CubinWork& item : work) {
      ASSIGN_OR_RETURN(item.cubin, reader->LoadCubin(item.crc));
    }
    instruction_texts_.Learn(work);  // nvdisasm may take seconds on a large cubin
    notes = instruction_texts_.Name(stored);
  }
  v1::Tree built = query::BuildTree(stored, instructions);
  for (std::string& note : notes) built.add_notes(std::move(note));
  auto tree = std::make_shared<const v1::Tree>(std::move(built));
  if (keep) kept_trees_.Keep(question, kept.ticket, tree, std::chrono::steady_clock::now());
  return tree;
}

absl::StatusOr<std::vector<v1::Trace>> ProtondService::GetTrace(const Peer& peer,
                                                                uint64_t session_id) {
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, session_id));
  if (session->proto.data() != v1::Session::TRACE) {
    return absl::FailedPreconditionError(absl::StrCat(
        "session ", session_id, " (", session->proto.name(),
        ") was not started with data=\"trace\": it keeps its call tree only, not the events a "
        "Chrome trace needs"));
  }
  // A trace may hold millions of events: read on a connection of the query's own, as committed.
  ASSIGN_OR_RETURN(query::StoreReaders::Lease reader, readers_.Take());
  ASSIGN_OR_RETURN(store::StoredTrace stored, reader->LoadTrace(session_id));
  return query::BuildTraceChunks(stored, session->clock_offset_ns);
}

absl::StatusOr<v1::Collectives> ProtondService::GetCollectives(const Peer& peer,
                                                               uint64_t session_id) {
  ASSIGN_OR_RETURN(const auto session, PublishedSessionOf(peer, session_id));
  ASSIGN_OR_RETURN(query::StoreReaders::Lease reader, readers_.Take());
  ASSIGN_OR_RETURN(const store::StoredCollectives stored, reader->LoadCollectives(session_id));
  return query::BuildCollectives(stored, session->proto);
}

}  // namespace protond::service
