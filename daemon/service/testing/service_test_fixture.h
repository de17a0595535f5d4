// ProtondService through its public API over a store in a temporary folder (the service's tests:
// protond_service_test.cc, queries_test.cc). This process plays the profiled one: it registers
// itself with a region of its own, as its shim would. Pushed commands are never answered here (an
// answer timeout of 0): no test waits.
#ifndef PROTOND_DAEMON_SERVICE_TESTING_SERVICE_TEST_FIXTURE_H_
#define PROTOND_DAEMON_SERVICE_TESTING_SERVICE_TEST_FIXTURE_H_

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/record/record_format.h"
#include "common/ring/ring_layout.h"
#include "daemon/service/protond_service.h"
#include "gtest/gtest.h"
#include "shim/ring/ring_writer.h"

namespace protond::service::testing {

class ProtondServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "protond_service_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
    auto service = ProtondService::Create(Options());
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    service_->set_answer_timeout(std::chrono::milliseconds(0));
  }
  void TearDown() override {
    service_.reset();
    std::filesystem::remove_all(folder_);
  }

  // A service over the folder's store that commits only when asked (an hour apart).
  ServiceOptions Options() const {
    ServiceOptions options;
    options.store_path = folder_ + "/store.db";
    options.commit_interval = std::chrono::hours(1);
    return options;
  }

  // Registers this process, as its shim does on the control connection, as a task of `job`.
  void RegisterSelf(const std::string& slurm_job_id = "") {
    auto region = ring::WritableRegion::Create({4, ring::kMinLaneDataBytes});
    ASSERT_TRUE(region.ok()) << region.status();
    region_ = std::make_unique<ring::WritableRegion>(std::move(*region));
    v1::RegisterRequest request;
    request.set_pid(self_.pid);
    request.set_uid(self_.uid);
    request.set_region_fd(region_->fd());
    request.set_region_bytes(region_->bytes());
    request.mutable_job()->set_slurm_job_id(slurm_job_id);
    absl::StatusOr<uint64_t> process_id = service_->RegisterProcess(self_, request);
    ASSERT_TRUE(process_id.ok()) << process_id.status();
    process_id_ = *process_id;
  }

  // A lane of RegisterSelf's region for this thread, whose records from now on are
  // `session_id`'s, as the shim's first records into a session make it.
  ring::LaneWriter LaneOfSession(uint64_t session_id) {
    ring::LaneWriter lane = region_->ClaimLane(static_cast<uint32_t>(gettid()));
    const record::Header thread = record::MakeThreadBegin(static_cast<uint32_t>(gettid()));
    const auto begin = record::MakeSessionBegin(session_id);
    EXPECT_TRUE(lane.valid() && lane.TryWrite(&thread, sizeof(thread)) &&
                lane.TryWrite(&begin, sizeof(begin)));
    return lane;
  }

  // A caller over TCP whose token names this user, limited to `jobs` (none: no limit).
  Peer Remote(std::vector<std::string> jobs) const {
    Peer remote;
    remote.uid = self_.uid;
    remote.remote = true;
    remote.jobs = std::move(jobs);
    return remote;
  }

  const Peer self_ = [] {
    Peer peer;
    peer.pid = static_cast<uint32_t>(getpid());
    peer.uid = static_cast<uint32_t>(getuid());
    return peer;
  }();
  std::string folder_;
  std::unique_ptr<ring::WritableRegion> region_;
  uint64_t process_id_ = 0;  // RegisterSelf's
  std::unique_ptr<ProtondService> service_;
};

}  // namespace protond::service::testing

#endif  // PROTOND_DAEMON_SERVICE_TESTING_SERVICE_TEST_FIXTURE_H_
