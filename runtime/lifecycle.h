/* SPDX-License-Identifier: Apache-2.0 */
/* What the lifecycle commands share: bringing a container up (create, run,
 * run --detach), the state JSON its hooks get, and its verdict when the
 * runtime is not init's parent (state, delete, events), from the watcher's
 * record, the cgroup if it is still there, and the signals `kill` sent. */
#ifndef SHIM_LIFECYCLE_H
#define SHIM_LIFECYCLE_H

#include <stdbool.h>

#include "cgroup/cgroup.h"
#include "cli/commands.h"
#include "runtime/config.h"
#include "runtime/container.h"
#include "runtime/state.h"
#include "verdict/verdict.h"

/* Annotations the verdict adds to the state of a stopped container and to
 * the poststop hooks' state. */
#define ANNOTATION_VERDICT "io.github.shim.verdict"       /* the verdict JSON */
#define ANNOTATION_OOM_KILLED "io.github.shim.oom-killed" /* true|false|null */
#define ANNOTATION_REASON "io.github.shim.reason"         /* OOMKilled|Killed|... */

struct launch_opts
{
  const char *bundle;
  const char *id;
  const char *pid_file;       /* written once init is ready, or NULL */
  const char *console_socket; /* with process.terminal, or NULL */
  bool no_pivot;
  bool detach;    /* create, run --detach: init outlives us, a watcher is armed */
  bool wait_start; /* create: init waits on exec.sock for `start` */
  bool allow_unenforced;
  bool has_memory; /* run --memory */
  int64_t memory;
};

struct launch
{
  struct shim_config *cfg;
  int dirfd; /* the state dir, locked */
  struct shim_state st;
  struct cgroup cg;
  struct container_proc proc;
};

/* Config, state dir, cgroup: everything before init exists.  On failure
 * what was made is undone. */
int launch_prepare (struct global_opts *g, const struct launch_opts *o, struct launch *l, shim_error_t *err);

/* Start init (prestart, createRuntime and createContainer hooks on the
 * way), write state.json and the pid file, arm the watcher when detached.
 * On failure init is killed; launch_abort undoes the rest. */
int launch_spawn (struct global_opts *g, const struct launch_opts *o, struct launch *l, shim_error_t *err);

/* Kill what exists, remove the cgroup and the state dir. */
void launch_abort (struct global_opts *g, struct launch *l);
void launch_release (struct launch *l);

/* The state JSON for hooks and `state`, with the verdict's annotations when
 * v is given. */
int lifecycle_state_json (const struct shim_state *st, enum container_status status, const struct verdict *v,
                          char **out, shim_error_t *err);

/* The verdict of a stopped container whose parent was not us. */
int lifecycle_verdict (int dirfd, const struct shim_state *st, const struct cgroup *cg, struct verdict *v,
                       shim_error_t *err);

/* podman 4 reads <bundle>/oom for State.OOMKilled: created when, and only
 * when, the container's own cgroup had the OOM kill. */
void lifecycle_mark_oom (const struct shim_state *st, const struct verdict *v);

/* --console-socket: connected, for the pty master. */
int lifecycle_connect_console (const char *path, shim_error_t *err);
/* --pid-file, written atomically (engines read it the moment we return). */
int lifecycle_write_pid_file (const char *path, pid_t pid, shim_error_t *err);

void lifecycle_config_warning (void *opaque, const char *path, const char *why);

/* Load the config saved at create (hooks, exec's defaults). */
int lifecycle_saved_config (int dirfd, const struct shim_state *st, struct shim_config **out, shim_error_t *err);

/* An existing container, for the commands that take an id: its state dir
 * (locked), state, cgroup (dirfd -1 once removed) and status. */
struct container_ref
{
  int dirfd;
  struct shim_state st;
  struct cgroup cg;
  enum container_status status;
};

int container_ref_open (struct global_opts *g, const char *id, bool exclusive, struct container_ref *r,
                        shim_error_t *err);
void container_ref_release (struct container_ref *r);
/* An error unless the status is one of allowed (bits 1 << STATUS_*):
 * "cannot start container `x`: it is running". */
int container_ref_need (const struct container_ref *r, const char *what, unsigned allowed, shim_error_t *err);
#define ST(s) (1u << (s))

#endif
