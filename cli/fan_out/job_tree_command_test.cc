#include "cli/fan_out/job_tree_command.h"

#include "gtest/gtest.h"

namespace protond::cli {
namespace {

v1::Session SessionWithProcessesOfJobs(
    const std::vector<std::pair<std::string, std::string>>& slurm_job_and_pod) {
  v1::Session session;
  for (const auto& [slurm_job_id, pod] : slurm_job_and_pod) {
    v1::Job* job = session.add_processes()->mutable_job();
    job->set_slurm_job_id(slurm_job_id);
    job->set_pod(pod);
  }
  return session;
}

TEST(JobTreeCommandTest, ASessionStartedForTheJobIsTheJobs) {
  v1::Session session;
  session.set_job("77");
  EXPECT_TRUE(IsSessionOfJob(session, "77"));
  EXPECT_FALSE(IsSessionOfJob(session, "78"));
}

// `SLURM_JOB_ID=77 protonctl run -- torchrun ...`: a session with no job of its own, whose
// processes carry the job.
TEST(JobTreeCommandTest, ASessionWhoseProcessesCarryTheJobIsTheJobs) {
  EXPECT_TRUE(IsSessionOfJob(SessionWithProcessesOfJobs({{"77", ""}, {"77", ""}}), "77"));
  EXPECT_TRUE(IsSessionOfJob(SessionWithProcessesOfJobs({{"", ""}, {"77", ""}}), "77"));
  EXPECT_FALSE(IsSessionOfJob(SessionWithProcessesOfJobs({{"76", ""}, {"", ""}}), "77"));
  // A pod names the job where there is no Slurm job id, as for `start --job`.
  EXPECT_TRUE(IsSessionOfJob(SessionWithProcessesOfJobs({{"", "trainer-0"}}), "trainer-0"));
  EXPECT_FALSE(IsSessionOfJob(SessionWithProcessesOfJobs({{"77", "trainer-0"}}), "trainer-0"));
}

TEST(JobTreeCommandTest, NoJobIsNobodysJob) {
  EXPECT_FALSE(IsSessionOfJob(SessionWithProcessesOfJobs({{"", ""}}), ""));
  EXPECT_FALSE(IsSessionOfJob(v1::Session(), ""));
}

}  // namespace
}  // namespace protond::cli
