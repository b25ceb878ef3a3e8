/* SPDX-License-Identifier: Apache-2.0 */
/* Arming, at createRuntime or prestart: find the container's cgroup from
 * init's pid, make sure an OOM takes the container as a group, and start
 * the detached watcher that keeps DIR/ID/record.json (evidence/watcher.h's
 * format) up to date and creates <bundle>/oom the moment the counters show
 * the container was OOM-killed.  The marker cannot wait for poststop:
 * podman reads it when it collects the exit code, before its poststop
 * hooks run. */
#ifndef SHIM_HOOK_WATCH_H
#define SHIM_HOOK_WATCH_H

#include <stdbool.h>

#include "common/error.h"
#include "hooks/hook_state.h"
#include "hooks/hook_store.h"

struct hook_arm_opts
{
  /* Write memory.oom.group=1 unless config.json's
   * linux.resources.unified sets it: without a group kill a hook, which
   * never learns init's exit status, cannot tell that init was killed. */
  bool oom_group;
  /* Maintain <bundle>/oom (removed at arming, created on an OOM kill). */
  bool oom_file;
};

/* Arm for the container in st (st->pid > 0): 0, or 1 when a watcher of
 * this container is already running (nothing done).  store_fd is the verdict
 * directory.  meta is filled as far as arming got (the caller records it,
 * with the error when arming fails); release it with hook_store_meta_release.
 * *cfd is DIR/ID once created (-1 before). */
int hook_watch_arm (int store_fd, const struct hook_state *st, const struct hook_arm_opts *o,
              struct hook_meta *meta, int *cfd, shim_error_t *err);

#endif
