/* SPDX-License-Identifier: Apache-2.0 */
/* Bringing a container up, shared by create, run and run --detach: the
 * config, the state dir and the cgroup (launch_prepare), then init, its
 * hooks, state.json, the pid file and the watcher (launch_spawn). */
#ifndef SHIM_LAUNCH_INTERNAL_H
#define SHIM_LAUNCH_INTERNAL_H

#include <stdbool.h>

#include "cgroup/cgroup.h"
#include "runtime/config.h"
#include "runtime/container.h"
#include "runtime/runtime.h"
#include "runtime/state.h"
#include "evidence/watcher.h"

struct launch_opts
{
  struct runtime_create_opts c;
  bool detach;     /* create, run --detach: init outlives us, a watcher is armed */
  bool wait_start; /* create: init waits on exec.sock for `start` */
};

struct launch
{
  struct shim_config *cfg;
  int dirfd; /* the state dir, locked */
  struct shim_state st;
  struct cgroup cg;
  struct container_proc proc;
  /* Armed before init exists (the baseline), spawned once it runs. */
  bool watcher_armed;
  struct watcher watcher;
  /* The watcher is armed when init is in its cgroup instead: the systemd
   * manager's cgroup exists only from then on (launch_spawn sets it). */
  bool arm_on_enter;
  /* Called then too, when set (run: its monitor's baseline). */
  int (*cgroup_ready) (struct launch *l, void *arg, shim_error_t *err);
  void *cgroup_ready_arg;
};

#define LAUNCH_INIT { .dirfd = -1, .cg = { .dirfd = -1, .mountfd = -1 }, .proc = { .pid = -1, .pidfd = -1, .pty_master = -1 }, .watcher = WATCHER_INIT }

/* Config, state dir, cgroup: everything before init exists.  On failure
 * what was made is undone. */
int launch_prepare (const struct runtime_ctx *ctx, const struct launch_opts *o, struct launch *l,
                    shim_error_t *err);

/* Start init (prestart, createRuntime and createContainer hooks on the
 * way), write state.json and the pid file, arm the watcher when detached.
 * On failure init is killed; launch_abort undoes the rest. */
int launch_spawn (const struct launch_opts *o, struct launch *l, shim_error_t *err);

/* Kill what exists, remove the cgroup and the state dir. */
void launch_abort (const struct runtime_ctx *ctx, struct launch *l);
void launch_release (struct launch *l);
#define cleanup_launch __attribute__ ((cleanup (launch_release)))

#endif
