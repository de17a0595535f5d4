// Makes every call of protond's API about one session and one process, and prints what each
// answered, a line per call: "CALL CODE ROWS MESSAGE" (ROWS: the sessions or processes listed,
// the targets recording, or -). The isolation test runs it as another user and as the owner.
// Usage: every_call SOCKET SESSION_ID PID
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "client-lib/cpp/client.h"

namespace {

template <typename T>
void Print(const char* call, const absl::StatusOr<T>& answer, const std::string& rows = "-") {
  std::printf("%s %s %s %s\n", call, absl::StatusCodeToString(answer.status().code()).c_str(),
              answer.ok() ? rows.c_str() : "-", std::string(answer.status().message()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t session = 0;
  uint32_t pid = 0;
  if (argc != 4 || !absl::SimpleAtoi(argv[2], &session) || !absl::SimpleAtoi(argv[3], &pid)) {
    std::fprintf(stderr, "usage: every_call SOCKET SESSION_ID PID\n");
    return 2;
  }
  protond::client::Client client{std::string(argv[1])};
  const auto sessions = client.ListSessions();
  Print("ListSessions", sessions, sessions.ok() ? std::to_string(sessions->sessions_size()) : "");
  const auto processes = client.ListProcesses();
  Print("ListProcesses", processes,
        processes.ok() ? std::to_string(processes->processes_size()) : "");
  Print("GetSession", client.GetSession(session));
  Print("GetTree", client.GetTree(session));
  protond::v1::ViewOptions view;
  view.set_depth(100);
  Print("ViewTree", client.ViewTree(session, "", view));
  Print("GetTrace", client.GetTrace(session));
  Print("GetCollectives", client.GetCollectives(session));
  Print("GetClock", client.GetClock());
  Print("FlushSession", client.FlushSession(session));
  protond::v1::AttachRequest attach;
  attach.add_pids(pid);
  const auto attached = client.Attach(attach);
  int recording = 0;
  if (attached.ok()) {
    for (const auto& target : attached->targets()) recording += target.recording();
  }
  Print("Attach", attached, std::to_string(recording));
  Print("StopSessionOfProcess", client.StopSessionOfProcess(pid));
  Print("StopSession", client.StopSession(session));
  return 0;
}
