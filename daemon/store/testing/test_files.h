// Test-only helpers for tests that look into a store file (the store's own, the fault tests):
// a temporary directory, and direct SQLite reads of a store file (integrity, pragmas, row
// counts) that the Store API does not offer.
#ifndef PROTOND_DAEMON_STORE_TESTING_TEST_FILES_H_
#define PROTOND_DAEMON_STORE_TESTING_TEST_FILES_H_

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"

namespace protond::store::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it at destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/protond_store_XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The first column of the first row of `sql` on its own connection to `path`, as text;
// "<error: ...>" when SQLite fails, so a test failure shows why.
inline std::string QueryFile(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string result;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    result = std::string("<error: ") + sqlite3_errmsg(db) + ">";
  } else {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      result = text != nullptr ? reinterpret_cast<const char*>(text) : "NULL";
    } else if (rc != SQLITE_DONE) {
      result = std::string("<error: ") + sqlite3_errmsg(db) + ">";
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return result;
}

// Every row of `sql` on its own connection to `path`, a line each, its columns joined by '|'
// (NULL for a null); "<error: ...>" when SQLite fails.
inline std::string QueryRows(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string result;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    result = std::string("<error: ") + sqlite3_errmsg(db) + ">";
  } else {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      for (int column = 0; column < sqlite3_column_count(stmt); ++column) {
        const unsigned char* text = sqlite3_column_text(stmt, column);
        result += column > 0 ? "|" : "";
        result += text != nullptr ? reinterpret_cast<const char*>(text) : "NULL";
      }
      result += "\n";
      rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE) result += std::string("<error: ") + sqlite3_errmsg(db) + ">";
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return result;
}

// Runs a script on its own connection to `path` (to build files the Store would refuse).
inline void ExecOnFile(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

}  // namespace protond::store::testing

#endif  // PROTOND_DAEMON_STORE_TESTING_TEST_FILES_H_
