// One node's protond as a job's readers see it (page_server/job_report.h,
// page_server/job_tree_table.h): protonctl has one per --hosts node (or its own daemon), protond's
// page has itself.
#ifndef PROTOND_PAGE_SERVER_JOB_NODE_H_
#define PROTOND_PAGE_SERVER_JOB_NODE_H_

#include <string>

#include "page_server/profile_source.h"

namespace protond::page_server {

struct JobNode {
  ProfileSource* source = nullptr;  // not owned; outlives the read
  std::string name;  // where it is read, as messages name it ("node02:7878", a socket's path)
  std::string host;  // its machine, as the report names a rank's host and relates clocks by
};

}  // namespace protond::page_server

#endif  // PROTOND_PAGE_SERVER_JOB_NODE_H_
