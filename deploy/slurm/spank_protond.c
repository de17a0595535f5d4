/* spank_protond: `srun --protond[=NAME]` profiles a job step with the node's protond.
 *
 * With the option, every task of the step starts with protond's shim preloaded (LD_PRELOAD,
 * prepended to the task's own) and PROTOND_SOCKET set, so each registers with the node's daemon
 * and can be profiled on demand (`protonctl start --job J`). With a NAME, the plugin also starts,
 * once per node and before any task runs, a session NAME of the job (`protonctl start --job J
 * --include-new --name NAME`) that the tasks record into from their start (PROTOND_SESSION) and
 * any other process of the job joins when it registers, and stops the job's running sessions when
 * the step ends (`protonctl stop --job J`).
 *
 * plugstack.conf arguments (all optional; the defaults are those of a packaged install):
 *   shim=PATH        libprotond_shim.so            (/usr/lib/protond/libprotond_shim.so)
 *   socket=PATH      the node daemon's socket      (/run/protond/protond.sock)
 *   protonctl=PATH   the protonctl to run          (/usr/bin/protonctl)
 *   timeout=SECONDS  how long protonctl may take   (10)
 *
 * protond never fails a job: every callback returns 0 whatever happens. When the shim is missing
 * or the session cannot be started (the daemon is down, say), the step runs unprofiled and the
 * plugin says so once, with slurm_error.
 *
 * Where each callback runs (see spank.h's diagram), and why these:
 *   slurm_spank_init       every context. In srun (local, as the user) and slurmstepd (remote,
 *                          as root) it registers --protond; srun passes the option's value on to
 *                          slurmstepd, which calls the option's callback again there. Options are
 *                          not registered for sbatch/salloc: a session belongs to a step.
 *   slurm_spank_user_init  remote, in slurmstepd, once per step on each node, after slurmstepd has
 *                          dropped its effective uid to the job's user and before any task is
 *                          forked. The environment set here (spank_setenv: the step's job env) is
 *                          what every task is started with, and a session started here is running
 *                          before the first task registers. protonctl runs as the job's user
 *                          (real and effective ids, the job's groups), so the session is the
 *                          user's, exactly as if they had typed the command.
 *   slurm_spank_task_exit  remote, in slurmstepd, as root again, once per task as slurmstepd
 *                          reaps it. After the node's last task, the step's work on this node is
 *                          over: the session is stopped there (protonctl as the user). This is
 *                          before slurmstepd tells srun that the last task exited; once srun
 *                          knows, the step is torn down and every process left in it, protonctl
 *                          too, is sent SIGTERM (the child ignores it, but should not need to).
 *   slurm_spank_exit       remote, in slurmstepd, as root, when the step ends: stops the session
 *                          if no task exit did (when the tasks could not be started). The job
 *                          epilog would end the session only at the end of the job, and sees no
 *                          srun option.
 * In srun, only the option's callback does anything: it checks the name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

SPANK_PLUGIN(protond, 1);

#define PROTOND_NAME_MAX 200
#define PROTOND_PATH_MAX 1024
#define PROTOND_ENV_MAX 8192

struct protond_config {
  char shim[PROTOND_PATH_MAX];
  char socket[PROTOND_PATH_MAX];
  char protonctl[PROTOND_PATH_MAX];
  int timeout_s;
};

/* The job's user, for protonctl. */
struct protond_user {
  uid_t uid;
  gid_t gid;
  gid_t *groups; /* slurmstepd's array, not ours to free */
  int group_count;
};

/* Set by the option's callback; read in the same process (srun or slurmstepd). */
static int g_enabled;
static char g_session_name[PROTOND_NAME_MAX + 1];
/* slurmstepd: plugstack.conf's arguments, read in user_init; whether this step started a
 * session, so that its end stops it. */
static struct protond_config g_config;
static int g_session_started;
static uint32_t g_tasks_exited;

static int protond_on_option(int val, const char *optarg, int remote);

static struct spank_option g_option = {
    .name = "protond",
    .arginfo = "[name]",
    .usage =
        "Profile with protond: preload its shim into every task; with a name, record the "
        "job's processes on each node into a session of that name until the step ends",
    .has_arg = 2, /* the name is optional: --protond or --protond=NAME */
    .val = 0,
    .cb = protond_on_option,
};

static int protond_on_option(int val, const char *optarg, int remote) {
  (void)val;
  g_enabled = 1;
  g_session_name[0] = '\0';
  if (optarg == NULL || optarg[0] == '\0') return 0;
  if (strlen(optarg) > PROTOND_NAME_MAX) {
    /* srun refuses the option before the job starts; slurmstepd never sees such a name. */
    slurm_error("protond: the session name is %zu characters long; at most %d", strlen(optarg),
                PROTOND_NAME_MAX);
    return remote ? 0 : -1;
  }
  strcpy(g_session_name, optarg);
  return 0;
}

static void protond_copy(char *to, const char *from) { snprintf(to, PROTOND_PATH_MAX, "%s", from); }

/* plugstack.conf's arguments; a mistake is reported and the default kept. */
static void protond_read_config(int argc, char **argv, struct protond_config *config) {
  protond_copy(config->shim, "/usr/lib/protond/libprotond_shim.so");
  protond_copy(config->socket, "/run/protond/protond.sock");
  protond_copy(config->protonctl, "/usr/bin/protonctl");
  config->timeout_s = 10;
  for (int i = 0; i < argc; ++i) {
    const char *arg = argv[i];
    if (strncmp(arg, "shim=", 5) == 0) {
      protond_copy(config->shim, arg + 5);
    } else if (strncmp(arg, "socket=", 7) == 0) {
      protond_copy(config->socket, arg + 7);
    } else if (strncmp(arg, "protonctl=", 10) == 0) {
      protond_copy(config->protonctl, arg + 10);
    } else if (strncmp(arg, "timeout=", 8) == 0 && atoi(arg + 8) > 0) {
      config->timeout_s = atoi(arg + 8);
    } else {
      slurm_error(
          "protond: plugstack.conf argument '%s' is not shim=, socket=, protonctl= or "
          "timeout=SECONDS; ignored",
          arg);
    }
  }
}

int slurm_spank_init(spank_t sp, int argc, char **argv) {
  (void)argc;
  (void)argv;
  const spank_context_t context = spank_context();
  if (context != S_CTX_LOCAL && context != S_CTX_REMOTE) return 0;
  if (spank_option_register(sp, &g_option) != ESPANK_SUCCESS) {
    slurm_error("protond: could not register --protond; srun --protond will be refused");
  }
  return 0;
}

/* Whether PATH is one of the colon- or blank-separated entries of LIST. */
static int protond_list_has(const char *list, const char *path) {
  const size_t length = strlen(path);
  for (const char *entry = list; *entry != '\0';) {
    const size_t entry_length = strcspn(entry, ": ");
    if (entry_length == length && strncmp(entry, path, length) == 0) return 1;
    entry += entry_length;
    if (*entry != '\0') ++entry;
  }
  return 0;
}

/* LD_PRELOAD and PROTOND_SOCKET in the step's environment. 0 when the tasks will load the shim. */
static int protond_set_task_env(spank_t sp, const struct protond_config *config) {
  if (faccessat(AT_FDCWD, config->shim, R_OK, AT_EACCESS) != 0) {
    slurm_error("protond: cannot read the shim %s (%s); this step runs unprofiled", config->shim,
                strerror(errno));
    return -1;
  }
  char preload[PROTOND_ENV_MAX];
  char old[PROTOND_ENV_MAX];
  const spank_err_t got = spank_getenv(sp, "LD_PRELOAD", old, sizeof old);
  if (got != ESPANK_SUCCESS || old[0] == '\0') {
    if (got == ESPANK_NOSPACE) {
      slurm_error("protond: LD_PRELOAD is longer than %d bytes; this step runs unprofiled",
                  PROTOND_ENV_MAX);
      return -1;
    }
    protond_copy(preload, config->shim);
  } else if (protond_list_has(old, config->shim)) {
    snprintf(preload, sizeof preload, "%s", old);
  } else if ((size_t)snprintf(preload, sizeof preload, "%s:%s", config->shim, old) >=
             sizeof preload) {
    slurm_error("protond: LD_PRELOAD would be longer than %d bytes; this step runs unprofiled",
                PROTOND_ENV_MAX);
    return -1;
  }
  if (spank_setenv(sp, "LD_PRELOAD", preload, 1) != ESPANK_SUCCESS ||
      spank_setenv(sp, "PROTOND_SOCKET", config->socket, 1) != ESPANK_SUCCESS) {
    slurm_error("protond: could not set the tasks' LD_PRELOAD; this step runs unprofiled");
    return -1;
  }
  return 0;
}

static double protond_now_s(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* In the forked child: become the job's user for good (real, effective and saved ids, its
 * groups), with stdout and stderr into the pipe and nothing else of slurmstepd's open. Only
 * async-signal-safe calls: slurmstepd has threads. */
static void protond_exec_child(const struct protond_user *user, int out_fd, char *const argv[],
                               char *const envp[]) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  /* A job that ends sends SIGTERM to every process of the step, this one too; it has the
   * timeout (and SIGKILL after KillWait) to finish. */
  signal(SIGTERM, SIG_IGN);
  if (getuid() != user->uid || geteuid() != user->uid || getgid() != user->gid) {
    /* In user_init the effective uid is the user's and the real one root's: take root back
     * first, which the real uid allows, then drop everything. */
    if ((geteuid() != 0 && seteuid(0) != 0) ||
        setgroups((size_t)user->group_count, user->groups) != 0 ||
        setresgid(user->gid, user->gid, user->gid) != 0 ||
        setresuid(user->uid, user->uid, user->uid) != 0) {
      static const char message[] = "could not take the job user's identity\n";
      (void)!write(out_fd, message, sizeof message - 1);
      _exit(126);
    }
  }
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, 0);
  dup2(out_fd, 1);
  dup2(out_fd, 2);
  close_range(3, ~0U, 0);
  if (chdir("/") != 0) _exit(126);
  execve(argv[0], argv, envp);
  static const char message[] = "could not run protonctl\n";
  (void)!write(2, message, sizeof message - 1);
  _exit(127);
}

/* Reads what the child writes until it closes the pipe or the deadline passes, and keeps its
 * first line (protonctl's message; a usage text may follow). */
static void protond_read_output(int fd, double deadline_s, char *out, size_t out_size) {
  size_t used = 0;
  int line_done = 0;
  for (;;) {
    const double left_s = deadline_s - protond_now_s();
    if (left_s <= 0) break;
    struct pollfd poll_fd = {fd, POLLIN, 0};
    const int ready = poll(&poll_fd, 1, (int)(left_s * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char chunk[512];
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n && !line_done && used + 1 < out_size; ++i) {
      line_done = chunk[i] == '\n';
      if (!line_done) out[used++] = chunk[i];
    }
  }
  out[used] = '\0';
}

/* Runs `protonctl --socket S ARGS...` as the job's user, for at most the configured time.
 * Returns its exit status (-1 if it could not run or was killed), its output in OUT. */
static int protond_run_protonctl(const struct protond_config *config,
                                 const struct protond_user *user, const char *const args[],
                                 char *out, size_t out_size) {
  char *argv[16];
  int argc = 0;
  argv[argc++] = (char *)config->protonctl;
  argv[argc++] = "--socket";
  argv[argc++] = (char *)config->socket;
  for (int i = 0; args[i] != NULL && argc < 15; ++i) argv[argc++] = (char *)args[i];
  argv[argc] = NULL;
  char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C", "PROTOND_AUTOSTART=0", NULL};

  snprintf(out, out_size, "could not run %s", config->protonctl);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return -1;
  }
  if (pid == 0) protond_exec_child(user, pipe_fds[1], argv, envp);
  close(pipe_fds[1]);
  const double deadline_s = protond_now_s() + config->timeout_s;
  protond_read_output(pipe_fds[0], deadline_s, out, out_size);
  close(pipe_fds[0]);

  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return -1;
    if (protond_now_s() > deadline_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      snprintf(out, out_size, "%s did not finish within %d s", config->protonctl,
               config->timeout_s);
      return -1;
    }
    usleep(10 * 1000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int protond_read_user(spank_t sp, struct protond_user *user) {
  user->groups = NULL;
  user->group_count = 0;
  if (spank_get_item(sp, S_JOB_UID, &user->uid) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_GID, &user->gid) != ESPANK_SUCCESS) {
    return -1;
  }
  if (spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &user->groups, &user->group_count) !=
      ESPANK_SUCCESS) {
    user->groups = NULL;
    user->group_count = 0;
  }
  return 0;
}

static void protond_start_session(spank_t sp, const struct protond_config *config) {
  uint32_t job_id = 0;
  struct protond_user user;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || protond_read_user(sp, &user)) {
    slurm_error("protond: could not read the job's id or user; session '%s' not started",
                g_session_name);
    return;
  }
  char job[16];
  snprintf(job, sizeof job, "%u", job_id);
  const char *args[] = {"start", "--job", job, "--include-new", "--name", g_session_name, NULL};
  char output[2048];
  const int status = protond_run_protonctl(config, &user, args, output, sizeof output);
  if (status != 0) {
    slurm_error("protond: session '%s' of job %s not started, the step runs unprofiled: %s",
                g_session_name, job, output);
    return;
  }
  g_session_started = 1;
  slurm_verbose("protond: %s", output);
  /* protonctl's first line is "session N (NAME): ...". The tasks record into session N from their
   * first instruction (PROTOND_SESSION), instead of joining it when they register, some 200 ms
   * in; --include-new still takes a task that loads the shim some other way. */
  unsigned long long session_id = 0;
  char value[24];
  if (sscanf(output, "session %llu (", &session_id) == 1) {
    snprintf(value, sizeof value, "%llu", session_id);
    if (spank_setenv(sp, "PROTOND_SESSION", value, 1) != ESPANK_SUCCESS) {
      slurm_error("protond: could not set PROTOND_SESSION; tasks join session %s when they "
                  "register", value);
    }
  }
}

int slurm_spank_user_init(spank_t sp, int argc, char **argv) {
  if (!g_enabled || !spank_remote(sp)) return 0;
  protond_read_config(argc, argv, &g_config);
  if (protond_set_task_env(sp, &g_config) != 0) return 0;
  if (g_session_name[0] != '\0') protond_start_session(sp, &g_config);
  return 0;
}

static void protond_stop_session(spank_t sp) {
  g_session_started = 0;
  uint32_t job_id = 0;
  struct protond_user user;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || protond_read_user(sp, &user)) {
    slurm_error("protond: could not read the job's id or user; session '%s' not stopped",
                g_session_name);
    return;
  }
  char job[16];
  snprintf(job, sizeof job, "%u", job_id);
  const char *args[] = {"stop", "--job", job, NULL};
  char output[2048];
  if (protond_run_protonctl(&g_config, &user, args, output, sizeof output) != 0) {
    slurm_error("protond: session '%s' of job %s not stopped: %s", g_session_name, job, output);
  }
}

int slurm_spank_task_exit(spank_t sp, int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (!g_session_started || !spank_remote(sp)) return 0;
  uint32_t local_tasks = 0;
  if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local_tasks) != ESPANK_SUCCESS) return 0;
  if (++g_tasks_exited >= local_tasks) protond_stop_session(sp);
  return 0;
}

int slurm_spank_exit(spank_t sp, int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (g_session_started && spank_remote(sp)) protond_stop_session(sp);
  return 0;
}
