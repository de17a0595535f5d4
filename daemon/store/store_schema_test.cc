// A store upgraded from the oldest schema has the very tables a fresh store gets: the same
// columns in the same order, types, defaults, keys, foreign keys, indexes and CHECK constraints.
// The fresh schema and the upgrades are written apart (internal/tables.h, internal/migrations.cc),
// so this is what keeps them from drifting.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "daemon/store/internal/test_schemas.h"
#include "daemon/store/store.h"
#include "daemon/store/testing/test_files.h"
#include "gtest/gtest.h"

namespace protond::store {
namespace {

using testing::QueryRows;

// `sql` without comments, quotes around names, and differences of spacing.
std::string NormalizeSql(absl::string_view sql) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    if (sql.substr(i, 2) == "--") {
      i = sql.find('\n', i);
      if (i == absl::string_view::npos) break;
    }
    const char c = sql[i];
    if (c == '"') continue;
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != '(' && c != ')' && c != ',') out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The column definitions and table constraints of a CREATE TABLE, sorted (ALTER TABLE ADD COLUMN
// appends after the table constraints), then what follows them (WITHOUT ROWID).
std::string DefinitionItems(const std::string& create_sql) {
  const std::string sql = NormalizeSql(create_sql);
  const size_t open = sql.find('(');
  const size_t close = sql.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return sql;
  std::vector<std::string> items;
  int depth = 0;
  std::string item;
  for (char c : sql.substr(open + 1, close - open - 1)) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      items.push_back(std::string(absl::StripAsciiWhitespace(item)));
      item.clear();
    } else {
      item += c;
    }
  }
  items.push_back(std::string(absl::StripAsciiWhitespace(item)));
  std::sort(items.begin(), items.end());
  return absl::StrCat("  ", absl::StrJoin(items, "\n  "), "\n  after:", sql.substr(close + 1));
}

// What decides what the store at `path` stores and refuses, as text a failure can show.
std::string DescribeSchema(const std::string& path) {
  std::string out = QueryRows(path, "SELECT type, name, tbl_name FROM sqlite_schema ORDER BY name");
  const std::string tables =
      QueryRows(path, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
  for (absl::string_view table : absl::StrSplit(tables, '\n', absl::SkipEmpty())) {
    const std::string quoted = absl::StrCat("'", table, "'");
    absl::StrAppend(
        &out, "table ", table, "\n",
        QueryRows(path, absl::StrCat("SELECT * FROM pragma_table_info(", quoted, ")")),
        QueryRows(path, absl::StrCat("SELECT \"table\", \"from\", \"to\", on_update, on_delete, "
                                     "match FROM pragma_foreign_key_list(",
                                     quoted, ") ORDER BY \"from\"")),
        QueryRows(path, absl::StrCat("SELECT type, ncol, wr, strict FROM pragma_table_list(",
                                     quoted, ")")),
        QueryRows(path, absl::StrCat("SELECT name, \"unique\", origin, partial FROM "
                                     "pragma_index_list(",
                                     quoted, ") ORDER BY name")),
        DefinitionItems(
            QueryRows(path, absl::StrCat("SELECT sql FROM sqlite_schema WHERE name = ", quoted))),
        "\n");
  }
  const std::string indexes = QueryRows(
      path, "SELECT sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name");
  absl::StrAppend(&out, "indexes\n", NormalizeSql(indexes), "\n");
  return out;
}

TEST(StoreSchemaTest, AStoreUpgradedFromVersionOneHasTheTablesOfAFreshStore) {
  testing::TempDir dir;
  const std::string fresh = dir.File("fresh.db");
  const std::string upgraded = dir.File("upgraded.db");
  testing::ExecOnFile(upgraded, absl::StrCat(testing::kSchemaV1,
                                             "PRAGMA application_id = 1347572814;"
                                             "PRAGMA user_version = 1;"));
  for (const std::string& path : {fresh, upgraded}) {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
  }
  ASSERT_EQ(QueryRows(upgraded, "PRAGMA user_version"), absl::StrCat(kSchemaVersion, "\n"));
  const std::string fresh_schema = DescribeSchema(fresh);
  EXPECT_NE(fresh_schema.find("table metric_values\n"), std::string::npos) << fresh_schema;
  EXPECT_EQ(fresh_schema.find("<error"), std::string::npos) << fresh_schema;
  EXPECT_EQ(fresh_schema, DescribeSchema(upgraded));
}

}  // namespace
}  // namespace protond::store
