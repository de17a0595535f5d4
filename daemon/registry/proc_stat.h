// Reading a process's identity from /proc, for telling a reused pid apart.
#ifndef PROTOND_DAEMON_REGISTRY_PROC_STAT_H_
#define PROTOND_DAEMON_REGISTRY_PROC_STAT_H_

#include <cstdint>

namespace protond::registry {

// Field 22 of /proc/PID/stat (start time in clock ticks since boot); 0 if the process is gone.
uint64_t ReadStartTicks(uint32_t pid);

// The process's pid in its own PID namespace: the last field of NStgid in /proc/PID/status (the
// pid itself where protond and the process share a namespace); 0 if it cannot be read. A process
// in a container knows only this one, while SO_PEERCRED gives protond the pid of its own
// namespace (the host's, for a protond with hostPID).
uint32_t ReadPidInOwnNamespace(uint32_t pid);

}  // namespace protond::registry

#endif  // PROTOND_DAEMON_REGISTRY_PROC_STAT_H_
