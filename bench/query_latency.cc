// How long protond takes to answer the queries behind `protonctl sessions` and `protonctl tree`
// (ListSessions, ViewTree), over one connection kept open: the daemon's part of the latency,
// without the cost of starting protonctl (which bench/load.py times apart with --version).
//
// Usage: query_latency SOCKET SECONDS EVERY_MS WIDE_SESSION SESSION...
// Every EVERY_MS for SECONDS: ListSessions, ViewTree of the next SESSION in turn, and (WIDE_SESSION
// not 0) ViewTree of that one. Prints each call's latency as load.py prints its own; exits 1 when
// a call fails.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "client-lib/cpp/client.h"
#include "view/tree/profile_view.h"

namespace {

using Clock = std::chrono::steady_clock;

// "median M  p90 A  p99 B  max C  (N samples)", as bench/load.py's summary().
void PrintSummary(const char* what, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  const auto at = [&ms](double share) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(share * ms.size()))];
  };
  std::printf("%s median %7.1f  p90 %7.1f  p99 %7.1f  max %7.1f  (%zu samples)\n", what,
              ms[ms.size() / 2], at(0.9), at(0.99), ms.back(), ms.size());
}

template <typename Call>
bool Timed(std::vector<double>& into, Call call) {
  const auto began = Clock::now();
  const auto answer = call();
  into.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
  if (!answer.ok()) std::fprintf(stderr, "query_latency: %s\n", answer.status().ToString().c_str());
  return answer.ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: query_latency SOCKET SECONDS EVERY_MS WIDE_SESSION SESSION...\n");
    return 2;
  }
  protond::client::Client client{std::string(argv[1])};
  const auto seconds = std::chrono::seconds(std::atoi(argv[2]));
  const auto every = std::chrono::milliseconds(std::atoi(argv[3]));
  const uint64_t wide = std::strtoull(argv[4], nullptr, 10);
  std::vector<uint64_t> sessions;
  for (int i = 5; i < argc; ++i) sessions.push_back(std::strtoull(argv[i], nullptr, 10));
  const protond::v1::ViewOptions options =
      protond::view::ViewOptionsToProto(protond::view::ViewOptions{});
  std::vector<double> list_ms, tree_ms, wide_ms;
  bool all_answered = true;
  for (const auto end = Clock::now() + seconds; Clock::now() < end;) {
    std::this_thread::sleep_for(every);
    all_answered &= Timed(list_ms, [&] { return client.ListSessions(); });
    const uint64_t session = sessions[tree_ms.size() % sessions.size()];
    all_answered &= Timed(tree_ms, [&] { return client.ViewTree(session, "", options); });
    if (wide != 0)
      all_answered &= Timed(wide_ms, [&] { return client.ViewTree(wide, "", options); });
  }
  PrintSummary("rpc ListSessions ms:  ", list_ms);
  PrintSummary("rpc ViewTree ms:      ", tree_ms);
  PrintSummary("rpc ViewTree ms, running session of 10,222 nodes:", wide_ms);
  return all_answered ? 0 : 1;
}
