/* SPDX-License-Identifier: Apache-2.0 */
/* Starting the container's init (container.c): namespaces, the process's
 * own settings (user, rlimits, cwd, environment) and the exec; the
 * filesystem part is in rootfs.c, the talk with init in sync.c.  And
 * another process in a running container (container_exec.c). */
#ifndef SHIM_CONTAINER_H
#define SHIM_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "runtime/config.h"

struct cgroup;

struct container_opts
{
  bool no_pivot;
  const char *id; /* the container's id (told to a seccomp listener) */
  int cgroup_fd; /* the container's cgroup directory (CLONE_INTO_CGROUP), or -1 */
  /* The cgroup's other hierarchies (cgroup v1), joined right after the
   * clone with cgroup_enter; NULL: none. */
  const struct cgroup *cgroup;
  /* init outlives the runtime (create, run --detach): no parent-death
   * signal once it is ready. */
  bool detach;
  /* create: init waits on this listening socket (exec.sock) until
   * `start` connects; -1: it goes straight on to the exec (run). */
  int exec_listen_fd;
  /* --console-socket, connected: with process.terminal the pty master is
   * sent there; -1: to us (run in a terminal), in container_proc. */
  int console_fd;
  /* Called once init's namespaces and mounts exist, before pivot_root:
   * the prestart and createRuntime hooks.  *state_json (malloc'd) is what
   * init's own hooks (createContainer, startContainer) get on stdin.
   * NULL: init does not stop there. */
  int (*create_runtime) (pid_t pid, void *opaque, char **state_json, shim_error_t *err);
  /* Called once init is in its cgroup (cgroup_enter), before it runs
   * anything: the systemd manager's cgroup exists only from then on.
   * NULL: nothing to do. */
  int (*cgroup_entered) (void *opaque, shim_error_t *err);
  void *opaque;
};

struct container_proc
{
  pid_t pid; /* in the runtime's pid namespace */
  int pidfd;
  int pty_master; /* process.terminal without a console socket, else -1 */
};

/* Create init and wait until it has exec'd the process, or with
 * exec_listen_fd until it waits for `start` (or failed: then the child's own
 * error, e.g. `process.args[0] "/bin/nope": not found in the container: no
 * such file or directory`, is returned and the child has been reaped). */
int container_spawn (const struct shim_config *cfg, const struct container_opts *opts,
                     struct container_proc *out, shim_error_t *err);

struct exec_opts
{
  int cgroup_fd;  /* the container's cgroup (CLONE_INTO_CGROUP), or -1 */
  const struct cgroup *cgroup; /* as container_opts.cgroup */
  int console_fd; /* as container_opts.console_fd */
  bool detach;    /* the process outlives `shim exec` */
  const char *id; /* the container's, for a seccomp listener */
  /* The state dir's locked fd: closed (and set to -1) right before the
   * clone.  A child cloned into a paused container's cgroup stops before
   * its first instruction, and with its copy of the fd it would hold the
   * lock until thawed: `resume` and `delete` would wait on it forever. */
  int *lock_fd;
  /* Forwarded signals (supervise_signals_fd), or -1: one of them ends the
   * wait for a child that has not exec'd yet (it is killed). */
  int sigfd;
};

/* `exec`: a new process in the namespaces, root and cgroup of the
 * container whose init is init_pid (cfg: the config saved at create, for
 * the list of namespaces).  Returns once it has exec'd. */
int container_exec (const struct shim_config *cfg, const struct shim_process *p, pid_t init_pid,
                    const struct exec_opts *o, struct container_proc *out, shim_error_t *err);

#endif
