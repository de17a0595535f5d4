// Trees built for queries, kept while what they were built from is unchanged. A viewer asks for
// the same tree again and again (tree, then tree -m ..., then export, or a page that redraws),
// and building it from the store is most of an answer's cost: a 10k-node tree takes tens of ms.
// A kept tree is forgotten when a commit changes its session's rows or what any session's tree
// is built from (devices, stored by process; cubins, by CRC), and after `keep_for` without a
// query; at most `max_trees` are kept, the least recently asked going first. A tree built while
// a commit changed its session is not kept. Thread-safe.
#ifndef PROTOND_DAEMON_QUERY_KEPT_TREES_H_
#define PROTOND_DAEMON_QUERY_KEPT_TREES_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "protond.pb.h"

namespace protond::query {

class KeptTrees {
 public:
  using Clock = std::chrono::steady_clock;

  // What a tree answers: a session, over all its processes or those of one rank, with or
  // without the instructions' text.
  struct Question {
    uint64_t session_id = 0;
    std::string rank;
    bool instructions = false;
    bool operator==(const Question&) const = default;
  };

  KeptTrees(size_t max_trees, Clock::duration keep_for)
      : max_trees_(max_trees), keep_for_(keep_for) {}

  // The kept tree that answers `question`, or null, with the ticket that a tree built now hands
  // to Keep.
  struct Found {
    std::shared_ptr<const v1::Tree> tree;
    uint64_t ticket = 0;
  };
  Found Find(const Question& question, Clock::time_point now);
  // Keeps `tree`, built after Find gave `ticket`, unless a commit changed it meanwhile.
  void Keep(const Question& question, uint64_t ticket, std::shared_ptr<const v1::Tree> tree,
            Clock::time_point now);

  // A commit changed the rows of `sessions` and, with `every_session`, what every session's tree
  // is built from. Also forgets the trees not asked for within keep_for.
  void Committed(const std::set<uint64_t>& sessions, bool every_session, Clock::time_point now);
  // The store went back to an earlier state: nothing kept holds.
  void ForgetAll();

  // The rendering of a kept `tree` with the options `view_key`, if it was kept.
  std::optional<std::string> View(const std::shared_ptr<const v1::Tree>& tree,
                                  const std::string& view_key);
  // Keeps a rendering with the tree, if the tree is still kept (one rendering a tree).
  void KeepView(const std::shared_ptr<const v1::Tree>& tree, const std::string& view_key,
                std::string text);

 private:
  struct Entry {
    Question question;
    std::shared_ptr<const v1::Tree> tree;
    std::string view_key;  // the serialized options of view_text; "" for none
    std::string view_text;
    Clock::time_point last_asked;
  };
  // Whether the session's tree changed after `ticket`.
  bool ChangedSince(uint64_t session_id, uint64_t ticket) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  Entry* EntryOf(const std::shared_ptr<const v1::Tree>& tree) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const size_t max_trees_;
  const Clock::duration keep_for_;
  absl::Mutex mutex_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mutex_);
  // Commits are numbered; a ticket is the number of the last one when a build began.
  uint64_t commits_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t everything_changed_at_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::flat_hash_map<uint64_t, uint64_t> session_changed_at_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace protond::query

#endif  // PROTOND_DAEMON_QUERY_KEPT_TREES_H_
