/* SPDX-License-Identifier: Apache-2.0 */
/* What init (container.c) and an exec'd process (container_exec.c)
 * share: the clone, the process's own settings and the exec. */
#ifndef SHIM_PROCESS_INTERNAL_H
#define SHIM_PROCESS_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/config.h"
#include "runtime/security.h"

/* clone3 a child with a pidfd into the pid namespace pid_ns_fd (-1: ours)
 * and the cgroup cgroup_fd (-1: ours), with flags (CLONE_NEW*) on top.
 * Returns the pid, 0 in the child; -1 with nothing left behind. */
pid_t process_clone (int pid_ns_fd, int cgroup_fd, uint64_t flags, int *pidfd, shim_error_t *err);

/* A child that failed on the way: killed, reaped, its pidfd closed, and
 * *pty_master (if given) closed and set to -1. */
void process_reap_failed (int pidfd, int *pty_master);

/* Child: no signal blocked or ignored. */
int process_reset_signals (shim_error_t *err);
int process_apply_rlimits (const struct shim_process *p, shim_error_t *err);
/* Child: additional gids, gid, uid. */
int process_apply_user (const struct shim_process *p, shim_error_t *err);

/* Child, process.terminal: a pty from the container's devpts as stdio and
 * controlling terminal; its master sent to console_fd (>= 0) or to the
 * runtime on sync_fd. */
int process_setup_terminal (const struct shim_process *p, int console_fd, int sync_fd, shim_error_t *err);

/* Child: process.args[0] searched in the container's $PATH (malloc'd). */
int process_find_executable (const struct shim_process *p, char **out, shim_error_t *err);

/* Child: mark close-on-exec what must not reach the process, then the
 * security settings (once: a second call does nothing). */
int process_exec_prepare (const struct shim_config *cfg, struct security_state *sec, shim_error_t *err);

/* Child: process_exec_prepare unless done, execve cfg->process.  Returns
 * only on failure. */
int process_exec (const struct shim_config *cfg, struct security_state *sec, const char *exe, shim_error_t *err);

#endif
