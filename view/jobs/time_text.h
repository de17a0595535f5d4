// Times in the jobs view's sentences: milliseconds to three significant figures ("0.412 ms",
// "10.2 ms", "551 ms"), seconds from ten seconds on ("12.3 s").
#ifndef PROTOND_VIEW_JOBS_TIME_TEXT_H_
#define PROTOND_VIEW_JOBS_TIME_TEXT_H_

#include <string>

namespace protond::view {

std::string FormatTimeNs(double ns);

}  // namespace protond::view

#endif  // PROTOND_VIEW_JOBS_TIME_TEXT_H_
