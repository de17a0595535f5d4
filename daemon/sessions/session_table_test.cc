#include "daemon/sessions/session_table.h"

#include <memory>

#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::sessions {
namespace {

class SessionTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::Store::Open(folder_.File("store.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  // Writes the sessions as a commit would.
  void Commit(SessionTable& table) {
    store::Batch batch;
    for (auto& [id, session] : table.all()) {
      batch.sessions.push_back(session.row);
      for (const auto& [process_id, counters] : session.processes) {
        batch.processes.push_back({process_id, static_cast<uint32_t>(process_id), 1000, 1, "p"});
        batch.session_processes.push_back(
            {id, process_id, counters.records, counters.dropped_records});
      }
      session.changed = false;
    }
    ASSERT_TRUE(store_->CommitBatch(batch).ok());
  }

  store::testing::TempDir folder_;
  std::unique_ptr<store::Store> store_;
  PublishedSessions published_;
};

registry::Directory OneProcess(uint64_t process_id, const std::string& slurm_job_id) {
  auto process = std::make_shared<registry::Process>();
  process->row = {process_id, 4242, 1000, 1, "python train.py"};
  process->row.job.slurm_job_id = slurm_job_id;
  return {{process_id, process}};
}

TEST_F(SessionTableTest, ANewSessionRunsWithATreeAndIdsGoOnAfterTheStoresLargest) {
  SessionTable first;
  ASSERT_TRUE(first.Load(*store_).ok());
  Session& running = first.Add(1000, "", v1::Session::TREE, {});
  Session& trace = first.Add(1000, "t", v1::Session::TRACE, {});
  EXPECT_EQ(running.row.session_id, 1u);
  EXPECT_EQ(running.row.name, "session");
  EXPECT_TRUE(running.running());
  EXPECT_TRUE(running.changed);
  EXPECT_EQ(trace.row.data, store::SessionData::kTrace);
  EXPECT_NE(trace.row.clock_offset_ns, 0);
  trace.row.state = store::SessionState::kStopped;
  Commit(first);

  SessionTable again;
  ASSERT_TRUE(again.Load(*store_).ok());
  ASSERT_EQ(again.all().size(), 2u);
  EXPECT_TRUE(again.Find(1)->running()) << "a running session is loaded with its tree";
  EXPECT_FALSE(again.Find(2)->running());
  EXPECT_EQ(again.Add(1000, "next", v1::Session::TREE, {}).row.session_id, 3u);
}

// The queries' copy: a stopped session nothing touched is shared with the last Publish; a running
// one, or one noted changed, is described anew.
TEST_F(SessionTableTest, PublishDescribesAnewOnlyWhatMayHaveChanged) {
  SessionTable table;
  Session& running = table.Add(1000, "running", v1::Session::TREE, {});
  Session& stopped = table.Add(1000, "stopped", v1::Session::TREE, {});
  stopped.row.state = store::SessionState::kStopped;
  stopped.tree.reset();
  table.Publish({}, published_);
  const auto running_before = published_.Find(running.row.session_id);
  const auto stopped_before = published_.Find(stopped.row.session_id);
  ASSERT_NE(running_before, nullptr);
  ASSERT_NE(stopped_before, nullptr);

  table.Publish({}, published_);
  EXPECT_EQ(published_.Find(stopped.row.session_id), stopped_before);
  EXPECT_NE(published_.Find(running.row.session_id), running_before);

  stopped.row.problems.push_back("late");
  table.NoteSessionChanged(stopped.row.session_id);
  table.Publish({}, published_);
  ASSERT_NE(published_.Find(stopped.row.session_id), stopped_before);
  EXPECT_EQ(published_.Find(stopped.row.session_id)->proto.problems(0), "late");

  table.Remove(running.row.session_id);
  table.Publish({}, published_);
  EXPECT_EQ(published_.Find(1), nullptr);
  EXPECT_EQ(published_.Get()->size(), 1u);
}

// A member's exit changes how a stopped session lists: the process's note makes Publish see it.
TEST_F(SessionTableTest, AProcessNotedChangedIsDescribedAnewInItsStoppedSessions) {
  SessionTable table;
  Session& stopped = table.Add(1000, "stopped", v1::Session::TREE, {});
  stopped.processes[5] = {10, 1};
  stopped.row.state = store::SessionState::kStopped;
  stopped.tree.reset();
  registry::Directory processes = OneProcess(5, "77");
  table.Publish(processes, published_);
  EXPECT_FALSE(published_.Find(1)->proto.processes(0).exited());

  auto exited = std::make_shared<registry::Process>(*processes.at(5));
  exited->row.exited = true;
  processes[5] = exited;
  table.Publish(processes, published_);
  EXPECT_FALSE(published_.Find(1)->proto.processes(0).exited()) << "not noted: shared";
  table.NoteProcessChanged(5);
  table.Publish(processes, published_);
  const v1::Session& listed = published_.Find(1)->proto;
  EXPECT_TRUE(listed.processes(0).exited());
  EXPECT_EQ(listed.processes(0).pid(), 4242u);
  EXPECT_EQ(listed.processes(0).job().slurm_job_id(), "77");
  EXPECT_EQ(listed.records(), 10u);
  EXPECT_EQ(listed.dropped_records(), 1u);
  EXPECT_EQ(published_.Find(1)->member_jobs, std::vector<std::string>{"77"});
}

TEST_F(SessionTableTest, AMemberNotInTheDirectoryIsListedAsUnknown) {
  SessionTable table;
  table.Add(1000, "s", v1::Session::TREE, {}).processes[9] = {};
  table.Publish({}, published_);
  EXPECT_FALSE(published_.Find(1)->members_known);
  EXPECT_EQ(published_.Find(1)->proto.processes(0).pid(), 0u);
}

// After a failed commit: counters go back to the store's, a member the store lacks stays (it is
// written by the next commit), and the session is marked for it.
TEST_F(SessionTableTest, ResetToStoreTakesTheStoresCountersAndKeepsNewMembers) {
  SessionTable table;
  Session& session = table.Add(1000, "s", v1::Session::TREE, {});
  session.processes[1] = {100, 2};
  Commit(table);
  session.processes[1] = {150, 3};
  session.processes[2] = {7, 0};
  session.row.problems.push_back("uncommitted");
  ASSERT_TRUE(store_->GetSession(1).ok());
  const std::optional<store::SessionRow> stored = *store_->GetSession(1);
  ASSERT_TRUE(stored);
  ASSERT_TRUE(SessionTable::ResetToStore(session, &*stored, *store_).ok());
  EXPECT_EQ(session.processes.at(1).records, 100u);
  EXPECT_EQ(session.processes.at(1).dropped_records, 2u);
  EXPECT_EQ(session.processes.at(2).records, 0u);
  EXPECT_TRUE(session.row.problems.empty());
  EXPECT_TRUE(session.running());
  EXPECT_TRUE(session.changed);
}

TEST_F(SessionTableTest, ASessionWithABadModeInTheStoreIsNotLoaded) {
  SessionTable table;
  Session& session = table.Add(1000, "s", v1::Session::TREE, {});
  session.row.mode = "no-such-mode";
  Commit(table);
  SessionTable again;
  const absl::Status loaded = again.Load(*store_);
  EXPECT_EQ(loaded.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(loaded.message().find("session 1 has a bad mode in the store"), std::string::npos)
      << loaded;
}

}  // namespace
}  // namespace protond::sessions
