/* SPDX-License-Identifier: Apache-2.0 */
/* The two conversations with a container's init, in one place:
 *
 * - the sync socket, a SOCK_SEQPACKET pair between the runtime and the
 *   child it clones (init, or an exec'd process) until the child has
 *   exec'd: one message per step, the text (an error, or the state JSON
 *   for init's hooks) after the header.  EOF means the child has exec'd
 *   (its end is close-on-exec).
 * - exec.sock in the state dir, on which init waits between create and
 *   start: `start` connects, sends the state its startContainer hooks get,
 *   and reads init's error, or EOF once it has exec'd. */
#ifndef SHIM_SYNC_INTERNAL_H
#define SHIM_SYNC_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "common/error.h"

enum sync_type
{
  SYNC_ERROR = 1,      /* init -> runtime: it failed; status and message */
  SYNC_CREATE_RUNTIME, /* init -> runtime: mounts done, run the hooks */
  SYNC_GO,             /* runtime -> init: go on; the state JSON */
  SYNC_PTY,            /* init -> runtime: the pty master (SCM_RIGHTS) */
  SYNC_READY,          /* init -> runtime: all set, about to wait for start */
};

struct sync_msg
{
  int type;
  int status;
  char text[65536 - 2 * sizeof (int)];
};

/* One message, with pass_fd (>= 0) attached; -1 with errno on failure. */
int sync_send (int fd, int type, int status, const char *text, int pass_fd);

/* Returns the bytes read (0 at EOF) or -1; a passed fd lands in *fd_out. */
ssize_t sync_recv (int fd, struct sync_msg *m, int *fd_out);

/* The child's failure, told to the runtime (or to `start`) on fd. */
void sync_report_error (int fd, const shim_error_t *err);

/* The runtime's side, until the child has exec'd (EOF) or, with
 * stop_at_ready, is ready and waits for start.  At SYNC_CREATE_RUNTIME
 * create_runtime is called and its state JSON sent with the go-ahead; a
 * pty master the child sends lands in *pty_master.  sigfd, a signalfd or
 * -1: a signal on it other than SIGWINCH ends the wait (EINTR), since a
 * child in a frozen cgroup says nothing until it is thawed. */
int sync_converse (int fd, int sigfd, pid_t pid, bool stop_at_ready,
                   int (*create_runtime) (pid_t pid, void *opaque, char **state_json, shim_error_t *err),
                   void *opaque, int *pty_master, shim_error_t *err);

/* The child's side: wait for the runtime's go-ahead; its text is the state
 * JSON (valid until the next call). */
int sync_wait_go (int fd, char **state_json, shim_error_t *err);

/* A child cloned into cgroup_clone_fd reaches the cgroup2 directory only;
 * on cgroup v1 it joins every hierarchy itself first thing
 * (cgroup_join_self), and the systemd manager's scope is made with the
 * child's pid.  Until then it must not run anything of the container's:
 * `run` exec'd the workload before it had been moved (measured under the
 * ASan build: memhog held 72 MiB under a 64 MiB v1 limit, its first pages
 * charged to the host's cgroup), outside its device rules too.  For the
 * scope the runtime must act: sync_enter_cgroup is the
 * runtime's side (cgroup_enter, then ENTERED (OPAQUE) if given: what
 * watches the new cgroup is armed there, then the go-ahead),
 * sync_wait_entered the child's, first thing after the clone.  NEEDED is
 * sync_gate_needed (CG) taken once before the clone (entering changes
 * what cgroup_enter_needed says of a systemd scope); both do nothing
 * for the other managers. */
bool sync_gate_needed (const struct cgroup *cg);
int sync_enter_cgroup (int fd, bool needed, const struct cgroup *cg, pid_t pid,
                       int (*entered) (void *opaque, shim_error_t *err), void *opaque,
                       shim_error_t *err);
int sync_wait_entered (int fd, bool needed, shim_error_t *err);

/* create: the listening exec.sock in the state dir dirfd. */
int sync_listen_exec (int dirfd, shim_error_t *err);

/* init, between create and start: accept `start`'s connection (*conn, where
 * init's errors go from then on) and read the state it sends (malloc'd; ""
 * for none). */
int sync_wait_start (int listen_fd, int *conn, char **start_json, shim_error_t *err);

/* start: connect to init's exec.sock in the state dir dirfd, release it
 * with the state its startContainer hooks get (NULL: the one of create),
 * wait until it has exec'd or reports why it could not, and remove
 * exec.sock. */
int sync_release (int dirfd, const char *state_json, shim_error_t *err);

#endif
