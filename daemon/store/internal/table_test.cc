// The SQL texts a table descriptor makes, and a row written and read back through it.
#include "daemon/store/internal/table.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/store/internal/connection.h"
#include "daemon/store/internal/statement.h"
#include "gtest/gtest.h"

namespace protond::store::internal {
namespace {

enum class Color : int { kRed = 1, kBlue = 2 };

struct Place {
  std::string city;
};

struct ThingRow {
  uint64_t owner_id = 0;
  uint32_t thing_id = 0;
  std::string name;  // interned
  Color color = Color::kRed;
  bool broken = false;
  double weight = 0;
  std::string notes;
  std::string bytes;
  Place place;

  friend bool operator==(const ThingRow& a, const ThingRow& b) {
    return a.owner_id == b.owner_id && a.thing_id == b.thing_id && a.name == b.name &&
           a.color == b.color && a.broken == b.broken &&
           (a.weight == b.weight || (std::isnan(a.weight) && std::isnan(b.weight))) &&
           a.notes == b.notes && a.bytes == b.bytes && a.place.city == b.place.city;
  }
};

struct OwnerRow {
  uint64_t owner_id = 0;
  std::string label;
};

absl::Status CheckThing(ThingRow& row) {
  if (row.color != Color::kRed && row.color != Color::kBlue) {
    return absl::DataLossError(absl::StrCat("thing ", row.thing_id, " has unknown color"));
  }
  return absl::OkStatus();
}

constexpr auto kThings =
    MakeTable("things", Storage::kWithoutRowid, OnConflict::kUpdate,
              Col("owner_id", "INTEGER NOT NULL", &ThingRow::owner_id)
                  .Key()
                  .References("owners (owner_id)"),
              Col("thing_id", "INTEGER NOT NULL", &ThingRow::thing_id).Key(),
              InternedCol("name_string_id", &ThingRow::name),
              Col("color", "INTEGER NOT NULL CHECK (color IN (1, 2))", &ThingRow::color),
              Col("broken", "INTEGER NOT NULL DEFAULT 0", &ThingRow::broken),
              Col("weight", "REAL", &ThingRow::weight),
              Col("notes", "TEXT NOT NULL", &ThingRow::notes),
              BlobCol("bytes", "BLOB NOT NULL", &ThingRow::bytes),
              Col("city", "TEXT NOT NULL DEFAULT ''", &ThingRow::place, &Place::city))
        .CheckedBy(CheckThing);

constexpr auto kOwners = MakeTable("owners", Storage::kRowid, OnConflict::kKeep,
                                   Col("owner_id", "INTEGER", &OwnerRow::owner_id).Key(),
                                   Col("label", "TEXT NOT NULL", &OwnerRow::label))
                             .WithIndexes("CREATE INDEX owners_label ON owners (label)");

TEST(TableTest, CreateTableSpellsEachColumnItsKeyAndItsForeignKey) {
  EXPECT_EQ(CreateTableSql(kThings.sql()),
            "CREATE TABLE things (\n"
            "  owner_id INTEGER NOT NULL REFERENCES owners (owner_id) DEFERRABLE INITIALLY "
            "DEFERRED,\n"
            "  thing_id INTEGER NOT NULL,\n"
            "  name_string_id INTEGER NOT NULL REFERENCES strings (id) DEFERRABLE INITIALLY "
            "DEFERRED,\n"
            "  color INTEGER NOT NULL CHECK (color IN (1, 2)),\n"
            "  broken INTEGER NOT NULL DEFAULT 0,\n"
            "  weight REAL,\n"
            "  notes TEXT NOT NULL,\n"
            "  bytes BLOB NOT NULL,\n"
            "  city TEXT NOT NULL DEFAULT '',\n"
            "  PRIMARY KEY (owner_id, thing_id)\n"
            ") WITHOUT ROWID");
}

TEST(TableTest, AOneColumnKeyIsTheColumnsPrimaryKeyAndIndexesFollow) {
  EXPECT_EQ(CreateTableSql(kOwners.sql()),
            "CREATE TABLE owners (\n"
            "  owner_id INTEGER PRIMARY KEY,\n"
            "  label TEXT NOT NULL\n"
            ");\n"
            "CREATE INDEX owners_label ON owners (label)");
}

TEST(TableTest, InsertUpdatesEveryColumnButTheKeyOrKeepsTheStoredRow) {
  EXPECT_EQ(InsertSql(kThings.sql()),
            "INSERT INTO things (owner_id, thing_id, name_string_id, color, broken, weight, "
            "notes, bytes, city) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
            "ON CONFLICT (owner_id, thing_id) DO UPDATE SET "
            "name_string_id = excluded.name_string_id, color = excluded.color, "
            "broken = excluded.broken, weight = excluded.weight, notes = excluded.notes, "
            "bytes = excluded.bytes, city = excluded.city");
  EXPECT_EQ(InsertSql(kOwners.sql()),
            "INSERT INTO owners (owner_id, label) VALUES (?1, ?2) ON CONFLICT DO NOTHING");
}

TEST(TableTest, SelectReadsAnInternedColumnsTextThroughAJoin) {
  EXPECT_EQ(SelectSql(kThings.sql(), "WHERE owner_id = ?1 ORDER BY thing_id"),
            "SELECT things.owner_id, things.thing_id, strings_name_string_id.value, "
            "things.color, things.broken, things.weight, things.notes, things.bytes, "
            "things.city FROM things JOIN strings AS strings_name_string_id "
            "ON strings_name_string_id.id = things.name_string_id "
            "WHERE owner_id = ?1 ORDER BY thing_id");
}

class TableRoundTripTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    connection_ = std::make_unique<Connection>(":memory:", db);
    ASSERT_TRUE(
        ExecSql(db, absl::StrCat("CREATE TABLE strings (id INTEGER PRIMARY KEY, value "
                                 "TEXT NOT NULL UNIQUE);",
                                 CreateTableSql(kOwners.sql()), ";", CreateTableSql(kThings.sql())))
            .ok());
  }

  std::unique_ptr<Connection> connection_;
};

TEST_F(TableRoundTripTest, EveryCodecReadsBackWhatWasWritten) {
  const std::vector<ThingRow> things = {
      {7, 1, "hammer", Color::kBlue, true, 1.5, "heavy", std::string("\0\1", 2), {"Oslo"}},
      {7, 2, "feather", Color::kRed, false, std::nan(""), "", "", {""}},
      {UINT64_MAX, UINT32_MAX, "hammer", Color::kRed, false, -0.25, "max", "x", {"Rome"}}};
  ASSERT_TRUE(WriteRows<kOwners>(*connection_, {{7, "seven"}, {UINT64_MAX, "max"}}).ok());
  absl::Status written = WriteRows<kThings>(*connection_, things);
  ASSERT_TRUE(written.ok()) << written;

  std::vector<ThingRow> read;
  absl::Status status = ReadRows<kThings>(*connection_, "ORDER BY thing_id", BindNothing, read);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(read, things);
  // "hammer" is stored once.
  std::vector<int64_t> strings;
  ASSERT_TRUE(Query(
                  *connection_, "SELECT count(*) FROM strings", BindNothing,
                  [](const Statement& row) { return row.ColumnInt(0); }, strings)
                  .ok());
  EXPECT_EQ(strings, std::vector<int64_t>{2});
}

TEST_F(TableRoundTripTest, AnUpsertReplacesTheRowAndAKeptRowStays) {
  ThingRow thing{7, 1, "hammer", Color::kBlue, true, 1.5, "heavy", "b", {"Oslo"}};
  ASSERT_TRUE(WriteRows<kOwners>(*connection_, {{7, "seven"}}).ok());
  ASSERT_TRUE(WriteRows<kOwners>(*connection_, {{7, "not kept"}}).ok());
  ASSERT_TRUE(WriteRows<kThings>(*connection_, {thing}).ok());
  thing.notes = "lighter";
  thing.name = "mallet";
  ASSERT_TRUE(WriteRows<kThings>(*connection_, {thing}).ok());

  std::vector<ThingRow> things;
  ASSERT_TRUE(ReadRows<kThings>(*connection_, "", BindNothing, things).ok());
  EXPECT_EQ(things, std::vector<ThingRow>{thing});
  std::vector<OwnerRow> owners;
  ASSERT_TRUE(ReadRows<kOwners>(*connection_, "", BindNothing, owners).ok());
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0].label, "seven");
}

TEST_F(TableRoundTripTest, AWriteErrorNamesTheTableAndACheckRefusesABadRow) {
  ThingRow thing{7, 1, "hammer", static_cast<Color>(3), false, 0, "", "", {""}};
  absl::Status status = WriteRows<kThings>(*connection_, {thing});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "writing things: ")) << status;

  ASSERT_TRUE(ExecSql(connection_->db(),
                      "PRAGMA ignore_check_constraints = ON;"
                      "INSERT INTO strings VALUES (100, 'x');"
                      "INSERT INTO things VALUES (7, 1, 100, 3, 0, 0, '', x'', '')")
                  .ok());
  std::vector<ThingRow> things;
  status = ReadRows<kThings>(*connection_, "", BindNothing, things);
  EXPECT_EQ(status, absl::DataLossError("thing 1 has unknown color"));
}

}  // namespace
}  // namespace protond::store::internal
