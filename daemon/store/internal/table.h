// A store table written down once: its name, its columns (name, SQL declaration, and the member
// of the row struct that holds the value) and how a row already stored is treated. From it come
// the CREATE TABLE text, the INSERT and SELECT texts, and the loops that bind a row to an INSERT
// and read one back from a SELECT, in column order, so a column is spelled in one place.
//
// Tables are constexpr objects (internal/tables.h); the SQL texts are made from them on first use
// and kept, and Connection caches the statements prepared from them.
#ifndef PROTOND_DAEMON_STORE_INTERNAL_TABLE_H_
#define PROTOND_DAEMON_STORE_INTERNAL_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/status/status_macros.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/internal/statement.h"

namespace protond::store::internal {

// How a value travels between a row's member and its column.
enum class Codec {
  kInteger,   // an integer, enum or bool, as the int64 with the same bits (a bool as 0 or 1)
  kReal,      // a double; SQLite stores a NaN as NULL, which reads back as a NaN
  kText,      // a std::string as TEXT
  kBlob,      // a std::string as a BLOB; '' is a zero-length blob, not NULL
  kWords,     // a std::vector<uint64_t> as a BLOB of 8-byte little-endian words; empty: ''
  kInterned,  // a std::string stored as its id in `strings`, read back through a join
};

// What a table does with a row whose key is already stored.
enum class OnConflict {
  kUpdate,  // sets every other column to the new row's values (rows are absolute values)
  kKeep,    // keeps the stored row: events and cubins are written once
};

enum class Storage { kRowid, kWithoutRowid };

// What the SQL texts need of a column.
struct ColumnSql {
  absl::string_view name = {};
  absl::string_view declaration = {};  // type and constraints, as in CREATE TABLE: "INTEGER"
  absl::string_view references = {};   // "sessions (session_id)": a deferred foreign key, or ""
  bool key = false;                    // part of the primary key (keys come first, in key order)
  bool interned = false;
};

// What the SQL texts need of a table.
struct TableSql {
  absl::string_view name;
  Storage storage = Storage::kWithoutRowid;
  OnConflict on_conflict = OnConflict::kUpdate;
  absl::Span<const ColumnSql> columns;
  absl::string_view indexes;  // CREATE INDEX statements that go with the table ("": none)
};

// "CREATE TABLE name (...)" with a deferred foreign key per reference; a one-column key is the
// column's PRIMARY KEY (a rowid alias when INTEGER), a longer one a table constraint.
std::string CreateTableSql(const TableSql& table);
// "INSERT INTO name (...) VALUES (?1, ...)" with the table's ON CONFLICT clause.
std::string InsertSql(const TableSql& table);
// The select list "name.column, ..." (an interned column reads its text) and the joins to
// `strings` it needs (" JOIN strings AS ..."), for a query that reads the table's rows.
std::string SelectedColumnsSql(const TableSql& table);
std::string StringJoinsSql(const TableSql& table);
// "SELECT <every column> FROM name <joins> <rest>"; `rest` is the WHERE and ORDER BY clauses.
// Its column names need no table: the joined `strings` has only `id` and `value`, which no
// table of the store has.
std::string SelectSql(const TableSql& table, absl::string_view rest);

// Where a column's value lives in a row: a member, or a member of a member.
template <typename RowT, typename T>
struct Member {
  using Row = RowT;
  using Value = T;
  T Row::*member;
  const T& Of(const Row& row) const { return row.*member; }
  T& Of(Row& row) const { return row.*member; }
};

template <typename RowT, typename Outer, typename T>
struct NestedMember {
  using Row = RowT;
  using Value = T;
  Outer Row::*outer;
  T Outer::*inner;
  const T& Of(const Row& row) const { return (row.*outer).*inner; }
  T& Of(Row& row) const { return (row.*outer).*inner; }
};

template <typename AccessT, Codec kCodecValue>
struct Column {
  using Access = AccessT;
  static constexpr Codec kCodec = kCodecValue;
  ColumnSql sql;
  Access access;

  constexpr Column Key() const {
    Column column = *this;
    column.sql.key = true;
    return column;
  }
  constexpr Column References(absl::string_view target) const {
    Column column = *this;
    column.sql.references = target;
    return column;
  }
};

template <typename T>
constexpr Codec CodecOf() {
  if constexpr (std::is_same_v<T, double>) {
    return Codec::kReal;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Codec::kText;
  } else {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "no codec for this member type");
    return Codec::kInteger;
  }
}

// A column whose codec follows from the member's type (an integer, enum, bool, double or text).
template <typename Row, typename T>
constexpr auto Col(absl::string_view name, absl::string_view declaration, T Row::*member) {
  return Column<Member<Row, T>, CodecOf<T>()>{.sql = {.name = name, .declaration = declaration},
                                              .access = {member}};
}

template <typename Row, typename Outer, typename T>
constexpr auto Col(absl::string_view name, absl::string_view declaration, Outer Row::*outer,
                   T Outer::*inner) {
  return Column<NestedMember<Row, Outer, T>, CodecOf<T>()>{
      .sql = {.name = name, .declaration = declaration}, .access = {outer, inner}};
}

template <typename Row>
constexpr auto BlobCol(absl::string_view name, absl::string_view declaration,
                       std::string Row::*member) {
  return Column<Member<Row, std::string>, Codec::kBlob>{
      .sql = {.name = name, .declaration = declaration}, .access = {member}};
}

template <typename Row>
constexpr auto WordsCol(absl::string_view name, absl::string_view declaration,
                        std::vector<uint64_t> Row::*member) {
  return Column<Member<Row, std::vector<uint64_t>>, Codec::kWords>{
      .sql = {.name = name, .declaration = declaration}, .access = {member}};
}

// The words' own bytes as a BLOB (the store's hosts are little-endian, as the records are): a
// view of `words`, which a bound statement reads until it runs. And back; a BLOB that is not a
// whole number of words is damage.
absl::string_view WordsAsBytes(const std::vector<uint64_t>& words);
absl::StatusOr<std::vector<uint64_t>> BlobToWords(absl::string_view blob);

// A text kept once in `strings`; the column holds its id.
template <typename Row>
constexpr auto InternedCol(absl::string_view name, std::string Row::*member) {
  return Column<Member<Row, std::string>, Codec::kInterned>{
      .sql = {.name = name,
              .declaration = "INTEGER NOT NULL",
              .references = "strings (id)",
              .interned = true},
      .access = {member}};
}

template <typename... Columns>
struct Table {
  using Row = typename std::tuple_element_t<0, std::tuple<Columns...>>::Access::Row;
  // Checks a row read back, or settles a value: the file is data, and a bad value is an error.
  using Check = absl::Status (*)(Row&);

  absl::string_view name;
  Storage storage;
  OnConflict on_conflict;
  std::tuple<Columns...> columns;
  std::array<ColumnSql, sizeof...(Columns)> column_sql;
  Check check = nullptr;
  absl::string_view indexes = {};

  constexpr Table CheckedBy(Check check_row) const {
    Table table = *this;
    table.check = check_row;
    return table;
  }
  constexpr Table WithIndexes(absl::string_view create_indexes) const {
    Table table = *this;
    table.indexes = create_indexes;
    return table;
  }
  TableSql sql() const { return {name, storage, on_conflict, column_sql, indexes}; }
};

template <typename... Columns>
constexpr auto MakeTable(absl::string_view name, Storage storage, OnConflict on_conflict,
                         Columns... columns) {
  return Table<Columns...>{.name = name,
                           .storage = storage,
                           .on_conflict = on_conflict,
                           .columns = std::tuple<Columns...>(columns...),
                           .column_sql = {columns.sql...}};
}

// The table's INSERT text, made once.
template <const auto& table>
const std::string& InsertSqlOf() {
  static const std::string* const sql = new std::string(InsertSql(table.sql()));
  return *sql;
}

// Binds `row` to `statement`, column i to ?i+1 (interning texts on the way).
template <typename TableT>
absl::Status BindRow(const TableT& table, Connection& connection, Statement& statement,
                     const typename TableT::Row& row) {
  absl::Status status;
  auto bind = [&](int index, const auto& column) {
    using ColumnT = std::remove_cvref_t<decltype(column)>;
    const auto& value = column.access.Of(row);
    if constexpr (ColumnT::kCodec == Codec::kInteger) {
      statement.BindInt(index, static_cast<int64_t>(value));
    } else if constexpr (ColumnT::kCodec == Codec::kReal) {
      statement.BindDouble(index, value);
    } else if constexpr (ColumnT::kCodec == Codec::kText) {
      statement.BindText(index, value);
    } else if constexpr (ColumnT::kCodec == Codec::kBlob) {
      statement.BindBlob(index, value);
    } else if constexpr (ColumnT::kCodec == Codec::kWords) {
      statement.BindBlob(index, WordsAsBytes(value));
    } else {
      absl::StatusOr<int64_t> id = connection.InternString(value);
      if (!id.ok()) {
        status = id.status();
        return false;
      }
      statement.BindInt(index, *id);
    }
    return true;
  };
  std::apply(
      [&](const auto&... columns) {
        int index = 0;
        (bind(++index, columns) && ...);
      },
      table.columns);
  return status;
}

// Reads a row of `table` from the current result row of `statement`, its columns starting at
// `first_column` (as SelectedColumnsSql lists them), then checks it.
template <typename TableT>
absl::StatusOr<typename TableT::Row> ReadRow(const TableT& table, const Statement& statement,
                                             int first_column = 0) {
  typename TableT::Row row{};
  absl::Status status;
  auto read = [&](int index, const auto& column) {
    using ColumnT = std::remove_cvref_t<decltype(column)>;
    auto& value = column.access.Of(row);
    if constexpr (ColumnT::kCodec == Codec::kInteger) {
      value = static_cast<std::remove_cvref_t<decltype(value)>>(statement.ColumnInt(index));
    } else if constexpr (ColumnT::kCodec == Codec::kReal) {
      value = statement.ColumnDouble(index);
    } else if constexpr (ColumnT::kCodec == Codec::kBlob) {
      value = statement.ColumnBlob(index);
    } else if constexpr (ColumnT::kCodec == Codec::kWords) {
      absl::StatusOr<std::vector<uint64_t>> words = BlobToWords(statement.ColumnBlob(index));
      if (words.ok()) {
        value = *std::move(words);
      } else {
        status.Update(absl::Status(
            words.status().code(),
            absl::StrCat(table.name, ".", column.sql.name, ": ", words.status().message())));
      }
    } else {  // text, or an interned text read through its join
      value = statement.ColumnText(index);
    }
  };
  std::apply(
      [&](const auto&... columns) {
        int index = first_column;
        (read(index++, columns), ...);
      },
      table.columns);
  RETURN_IF_ERROR(status);
  if (table.check != nullptr) RETURN_IF_ERROR(table.check(row));
  return row;
}

// Writes `rows` into `table` with its cached INSERT statement. An error names the table.
template <const auto& table>
absl::Status WriteRows(
    Connection& connection,
    const std::vector<typename std::remove_cvref_t<decltype(table)>::Row>& rows) {
  if (rows.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Statement * statement, connection.Prepared(InsertSqlOf<table>()));
  for (const auto& row : rows) {
    absl::Status status = BindRow(table, connection, *statement, row);
    if (status.ok()) status = statement->Run();
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("writing ", table.name, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

// Runs the cached statement for `sql` with the parameters `bind` sets, appending the decoded
// rows to `rows`. `decode` returns a Row or an absl::StatusOr<Row>.
template <typename Row, typename Bind, typename Decode>
absl::Status Query(Connection& connection, absl::string_view sql, Bind bind, Decode decode,
                   std::vector<Row>& rows) {
  ASSIGN_OR_RETURN(Statement * statement, connection.Prepared(sql));
  bind(*statement);
  absl::Status decode_status;
  RETURN_IF_ERROR(statement->ForEachRow([&](const Statement& result) {
    if (!decode_status.ok()) return;
    absl::StatusOr<Row> row = decode(result);
    if (row.ok()) {
      rows.push_back(*std::move(row));
    } else {
      decode_status = row.status();
    }
  }));
  return decode_status;
}

// Appends the rows of `table` that "SELECT <every column> FROM table <rest>" returns with the
// parameters `bind` sets.
template <const auto& table, typename Bind>
absl::Status ReadRows(Connection& connection, absl::string_view rest, Bind bind,
                      std::vector<typename std::remove_cvref_t<decltype(table)>::Row>& rows) {
  return Query(
      connection, SelectSql(table.sql(), rest), bind,
      [](const Statement& row) { return ReadRow(table, row); }, rows);
}

inline auto BindId(uint64_t id) {
  return [id](Statement& statement) { statement.BindUint(1, id); };
}

inline void BindNothing(Statement&) {}

}  // namespace protond::store::internal

#endif  // PROTOND_DAEMON_STORE_INTERNAL_TABLE_H_
