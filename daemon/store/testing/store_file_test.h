// Test-only: a fixture with a Store on a file in a temporary directory, for the tests of the
// always-on history's store calls (store_history_test.cc, store_period_test.cc).
#ifndef PROTOND_DAEMON_STORE_TESTING_STORE_FILE_TEST_H_
#define PROTOND_DAEMON_STORE_TESTING_STORE_FILE_TEST_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "daemon/store/store.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::store::testing {

class StoreFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  void Commit(const Batch& batch) {
    absl::StatusOr<std::vector<RefusedSession>> refused = store_->CommitBatch(batch);
    ASSERT_TRUE(refused.ok()) << refused.status();
    ASSERT_TRUE(refused->empty());
  }
  // The rows of session `id` in each of `tables`, as "a,b,c,...".
  std::string RowsIn(std::initializer_list<const char*> tables, uint64_t id) {
    std::string counts;
    for (const char* table : tables) {
      if (!counts.empty()) counts += ",";
      counts += QueryFile(path_, std::string("SELECT count(*) FROM ") + table +
                                     " WHERE session_id = " + std::to_string(id));
    }
    return counts;
  }

  TempDir dir_;
  std::string path_ = dir_.File("protond.db");
  std::unique_ptr<Store> store_;
};

}  // namespace protond::store::testing

#endif  // PROTOND_DAEMON_STORE_TESTING_STORE_FILE_TEST_H_
