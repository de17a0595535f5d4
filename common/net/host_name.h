// This machine's name, as the job reports name a rank's host (page_server/job_report.h).
#ifndef PROTOND_COMMON_NET_HOST_NAME_H_
#define PROTOND_COMMON_NET_HOST_NAME_H_

#include <string>

namespace protond::net {

// gethostname's answer; "" where it fails (the report then names no host).
std::string LocalHostName();

}  // namespace protond::net

#endif  // PROTOND_COMMON_NET_HOST_NAME_H_
