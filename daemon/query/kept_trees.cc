#include "daemon/query/kept_trees.h"

#include <algorithm>

namespace protond::query {

KeptTrees::Found KeptTrees::Find(const Question& question, Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  for (Entry& entry : entries_) {
    if (entry.question == question) {
      entry.last_asked = now;
      return {entry.tree, commits_};
    }
  }
  return {nullptr, commits_};
}

void KeptTrees::Keep(const Question& question, uint64_t ticket,
                     std::shared_ptr<const v1::Tree> tree, Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  if (ChangedSince(question.session_id, ticket)) return;
  std::erase_if(entries_, [&](const Entry& entry) { return entry.question == question; });
  if (entries_.size() >= max_trees_) {
    entries_.erase(std::min_element(
        entries_.begin(), entries_.end(),
        [](const Entry& a, const Entry& b) { return a.last_asked < b.last_asked; }));
  }
  entries_.push_back({question, std::move(tree), "", "", now});
}

void KeptTrees::Committed(const std::set<uint64_t>& sessions, bool every_session,
                          Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  if (sessions.empty() && !every_session) {
    std::erase_if(entries_, [&](const Entry& e) { return now - e.last_asked > keep_for_; });
    return;
  }
  ++commits_;
  if (every_session) everything_changed_at_ = commits_;
  for (uint64_t session_id : sessions) session_changed_at_[session_id] = commits_;
  std::erase_if(entries_, [&](const Entry& e) {
    return every_session || sessions.contains(e.question.session_id) ||
           now - e.last_asked > keep_for_;
  });
}

void KeptTrees::ForgetAll() {
  absl::MutexLock lock(&mutex_);
  entries_.clear();
  everything_changed_at_ = ++commits_;
}

bool KeptTrees::ChangedSince(uint64_t session_id, uint64_t ticket) const {
  if (everything_changed_at_ > ticket) return true;
  auto changed = session_changed_at_.find(session_id);
  return changed != session_changed_at_.end() && changed->second > ticket;
}

KeptTrees::Entry* KeptTrees::EntryOf(const std::shared_ptr<const v1::Tree>& tree) {
  for (Entry& entry : entries_) {
    if (entry.tree == tree) return &entry;
  }
  return nullptr;
}

std::optional<std::string> KeptTrees::View(const std::shared_ptr<const v1::Tree>& tree,
                                           const std::string& view_key) {
  absl::MutexLock lock(&mutex_);
  const Entry* entry = EntryOf(tree);
  if (entry == nullptr || entry->view_key != view_key) return std::nullopt;
  return entry->view_text;
}

void KeptTrees::KeepView(const std::shared_ptr<const v1::Tree>& tree, const std::string& view_key,
                         std::string text) {
  absl::MutexLock lock(&mutex_);
  if (Entry* entry = EntryOf(tree); entry != nullptr) {
    entry->view_key = view_key;
    entry->view_text = std::move(text);
  }
}

}  // namespace protond::query
