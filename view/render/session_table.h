// Renders protond's sessions (protond.v1.Session) as text for `protonctl sessions` and a
// session's detail view. Pure functions; no I/O. Times print in the local time zone (TZ).
#ifndef PROTOND_VIEW_RENDER_SESSION_TABLE_H_
#define PROTOND_VIEW_RENDER_SESSION_TABLE_H_

#include <cstdint>
#include <string>

#include "protond.pb.h"

namespace protond::view {

// A header line, then one line per session, columns aligned and two spaces apart:
// ID, NAME, STATE (running/stopped), PROCESSES (how many), START, END ("-" while running),
// RECORDS, DROPPED, ORIGIN ("window" for a window of protond --always-on, "hand" for a session
// someone started) when a session is a window, and MODE (Proton's mode, "-" for none) when a
// session has one. Numbers are
// right-aligned, text left-aligned; no line ends in spaces.
std::string RenderSessionTable(const google::protobuf::RepeatedPtrField<v1::Session>& sessions);

// The session's problems, one line each: "  problem: <text>\n"; empty when there are none.
std::string RenderSessionProblems(const v1::Session& session);

// "YYYY-MM-DD HH:MM:SS" in local time (localtime_r), "-" for 0 (not set).
std::string FormatLocalTime(int64_t unix_ns);

}  // namespace protond::view

#endif  // PROTOND_VIEW_RENDER_SESSION_TABLE_H_
