#include "daemon/store/internal/table.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace protond::store::internal {
namespace {

// The names of `table`'s columns for which `keep` holds, each as `format` makes it.
template <typename Keep, typename Format>
std::string JoinColumns(const TableSql& table, Keep keep, Format format) {
  std::vector<std::string> parts;
  for (const ColumnSql& column : table.columns) {
    if (keep(column)) parts.push_back(format(column));
  }
  return absl::StrJoin(parts, ", ");
}

bool Any(const ColumnSql&) { return true; }
bool IsKey(const ColumnSql& column) { return column.key; }
bool IsNotKey(const ColumnSql& column) { return !column.key; }
std::string Name(const ColumnSql& column) { return std::string(column.name); }

int KeyCount(const TableSql& table) {
  int keys = 0;
  for (const ColumnSql& column : table.columns) keys += column.key ? 1 : 0;
  return keys;
}

// The alias of the `strings` row that an interned column's id names.
std::string StringAlias(const ColumnSql& column) { return absl::StrCat("strings_", column.name); }

std::string ColumnDefinition(const ColumnSql& column, bool inline_key) {
  std::string definition = absl::StrCat("  ", column.name, " ", column.declaration);
  if (inline_key) absl::StrAppend(&definition, " PRIMARY KEY");
  if (!column.references.empty()) {
    absl::StrAppend(&definition, " REFERENCES ", column.references,
                    " DEFERRABLE INITIALLY DEFERRED");
  }
  return definition;
}

}  // namespace

std::string CreateTableSql(const TableSql& table) {
  const bool composite_key = KeyCount(table) > 1;
  std::vector<std::string> lines;
  for (const ColumnSql& column : table.columns) {
    lines.push_back(ColumnDefinition(column, column.key && !composite_key));
  }
  if (composite_key) {
    lines.push_back(absl::StrCat("  PRIMARY KEY (", JoinColumns(table, IsKey, Name), ")"));
  }
  std::string sql =
      absl::StrCat("CREATE TABLE ", table.name, " (\n", absl::StrJoin(lines, ",\n"), "\n)",
                   table.storage == Storage::kWithoutRowid ? " WITHOUT ROWID" : "");
  if (!table.indexes.empty()) absl::StrAppend(&sql, ";\n", table.indexes);
  return sql;
}

std::string InsertSql(const TableSql& table) {
  int parameter = 0;
  std::string sql = absl::StrCat(
      "INSERT INTO ", table.name, " (", JoinColumns(table, Any, Name), ") VALUES (",
      JoinColumns(table, Any, [&](const ColumnSql&) { return absl::StrCat("?", ++parameter); }),
      ")");
  const bool only_keys = KeyCount(table) == static_cast<int>(table.columns.size());
  if (table.on_conflict == OnConflict::kKeep || only_keys) {
    return absl::StrCat(sql, " ON CONFLICT DO NOTHING");
  }
  return absl::StrCat(sql, " ON CONFLICT (", JoinColumns(table, IsKey, Name), ") DO UPDATE SET ",
                      JoinColumns(table, IsNotKey, [](const ColumnSql& column) {
                        return absl::StrCat(column.name, " = excluded.", column.name);
                      }));
}

std::string SelectedColumnsSql(const TableSql& table) {
  return JoinColumns(table, Any, [&](const ColumnSql& column) {
    return column.interned ? absl::StrCat(StringAlias(column), ".value")
                           : absl::StrCat(table.name, ".", column.name);
  });
}

std::string StringJoinsSql(const TableSql& table) {
  std::string joins;
  for (const ColumnSql& column : table.columns) {
    if (!column.interned) continue;
    const std::string alias = StringAlias(column);
    absl::StrAppend(&joins, " JOIN strings AS ", alias, " ON ", alias, ".id = ", table.name, ".",
                    column.name);
  }
  return joins;
}

std::string SelectSql(const TableSql& table, absl::string_view rest) {
  return absl::StrCat("SELECT ", SelectedColumnsSql(table), " FROM ", table.name,
                      StringJoinsSql(table), " ", rest);
}

absl::string_view WordsAsBytes(const std::vector<uint64_t>& words) {
  return absl::string_view(reinterpret_cast<const char*>(words.data()),
                           words.size() * sizeof(uint64_t));
}

absl::StatusOr<std::vector<uint64_t>> BlobToWords(absl::string_view blob) {
  if (blob.size() % sizeof(uint64_t) != 0) {
    return absl::DataLossError(
        absl::StrCat("a blob of ", blob.size(), " bytes is not a whole number of 8-byte words"));
  }
  std::vector<uint64_t> words(blob.size() / sizeof(uint64_t));
  if (!words.empty()) std::memcpy(words.data(), blob.data(), blob.size());
  return words;
}

}  // namespace protond::store::internal
