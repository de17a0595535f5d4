#include "view/render/process_table.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace protond::view {
namespace {

using ::testing::HasSubstr;

TEST(ProcessTableTest, OneLinePerProcessWithRankJobDevicesAndSessions) {
  v1::ListProcessesResponse processes;
  v1::ProcessInfo* trainer = processes.add_processes();
  trainer->set_pid(4242);
  trainer->set_uid(1000);
  trainer->set_hostname("node7");
  trainer->mutable_job()->set_rank("3");
  trainer->mutable_job()->set_world_size("8");
  trainer->mutable_job()->set_local_rank("1");
  trainer->mutable_job()->set_slurm_job_id("981");
  trainer->mutable_job()->set_slurm_step_id("0");
  trainer->add_devices("0:NVIDIA H100 80GB HBM3");
  trainer->add_sessions(5);
  trainer->add_sessions(7);
  trainer->set_gpu("traced by protond");
  trainer->set_command("python train.py");
  v1::ProcessInfo* loader = processes.add_processes();
  loader->set_pid(77);
  loader->set_uid(1000);
  loader->mutable_job()->set_pod("trainer-0");
  loader->mutable_job()->set_pod_namespace("ml");
  loader->mutable_job()->set_cuda_visible_devices("2,3");
  loader->set_gpu("CUDA not loaded");
  loader->set_command("sample_workload --steps 100");
  EXPECT_EQ(
      RenderProcessTable(processes),
      " PID   UID  HOST   RANK         JOB           DEVICES                   SESSIONS  GPU  "
      "              COMMAND\n"
      "4242  1000  node7  3/8,local 1  981.0         0:NVIDIA H100 80GB HBM3   5,7       traced "
      "by protond  python train.py\n"
      "  77  1000  -      -            ml/trainer-0  CUDA_VISIBLE_DEVICES=2,3  -         CUDA "
      "not loaded    sample_workload --steps 100\n");
}

TEST(ProcessTableTest, AnIncludeNewSessionSaysTheJobsLaterProcessesJoinIt) {
  v1::AttachResponse response;
  response.mutable_session()->set_id(3);
  response.mutable_session()->set_name("step");
  response.mutable_session()->set_job("981");
  response.mutable_session()->set_admits_new(true);
  EXPECT_EQ(RenderAttachResult(response),
            "session 3 (step): recording 0 of 0 registered processes of job 981; those that "
            "register later join it\n");
}

TEST(ProcessTableTest, NoProcessesSaysHowOneRegisters) {
  EXPECT_EQ(RenderProcessTable({}),
            "no registered processes (a process registers when protond's shim is loaded in it: "
            "protonctl run, LD_PRELOAD, or protonctl start --pid)\n");
}

TEST(ProcessTableTest, AllAddsTheGpuProcessesWithoutTheShim) {
  v1::ListProcessesResponse processes;
  EXPECT_THAT(RenderProcessTable(processes, /*all=*/true),
              HasSubstr("\nno GPU process without the shim that you may see"));
  v1::ProcessWithoutShim* attachable = processes.add_without_shim();
  attachable->set_pid(41);
  attachable->set_uid(1000);
  attachable->set_command("python train.py");
  v1::ProcessWithoutShim* traced = processes.add_without_shim();
  traced->set_pid(42);
  traced->set_uid(1000);
  traced->set_refusal("already traced by process 7 (a debugger?)");
  EXPECT_EQ(RenderProcessTable(processes, /*all=*/false), RenderProcessTable({}));
  const std::string table = RenderProcessTable(processes, /*all=*/true);
  EXPECT_THAT(table, HasSubstr("PID   UID  ATTACH"));
  EXPECT_THAT(table, HasSubstr(" 41  1000  attachable"));
  EXPECT_THAT(table, HasSubstr("python train.py"));
  EXPECT_THAT(table, HasSubstr(" 42  1000  already traced by process 7 (a debugger?)  -"));
}

TEST(ProcessTableTest, AttachResultSaysWhatBecameOfEachPid) {
  v1::AttachResponse response;
  response.mutable_session()->set_id(9);
  response.mutable_session()->set_name("window");
  v1::AttachTarget* traced = response.add_targets();
  traced->set_pid(10);
  traced->set_recording(true);
  v1::AttachTarget* cpu_only = response.add_targets();
  cpu_only->set_pid(11);
  cpu_only->set_recording(true);
  cpu_only->set_reason("no GPU work yet: the process has not used CUDA");
  response.add_targets()->set_pid(12);
  response.mutable_targets(2)->set_reason("exited");
  EXPECT_EQ(RenderAttachResult(response),
            "session 9 (window): recording 2 of 3 processes\n"
            "  pid 10: recording\n"
            "  pid 11: recording (no GPU work yet: the process has not used CUDA)\n"
            "  pid 12: exited\n");
  response.clear_session();
  response.mutable_targets()->DeleteSubrange(0, 2);
  EXPECT_EQ(RenderAttachResult(response), "no process could be profiled\n  pid 12: exited\n");
}

}  // namespace
}  // namespace protond::view
