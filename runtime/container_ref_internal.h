/* SPDX-License-Identifier: Apache-2.0 */
/* An existing container, for the commands that take an id: its state dir
 * (locked), state, cgroup (dirfd -1 once removed) and status, and the
 * signals sent to it. */
#ifndef SHIM_CONTAINER_REF_INTERNAL_H
#define SHIM_CONTAINER_REF_INTERNAL_H

#include <stdbool.h>

#include "cgroup/cgroup.h"
#include "common/error.h"
#include "runtime/state.h"

struct container_ref
{
  int dirfd;
  struct shim_state st;
  struct cgroup cg;
  enum container_status status;
};

#define CONTAINER_REF_INIT { .dirfd = -1, .cg = { .dirfd = -1, .mountfd = -1 } }

int container_ref_open (const char *root, const char *id, bool exclusive, struct container_ref *r,
                        shim_error_t *err);
void container_ref_release (struct container_ref *r);
#define cleanup_container_ref __attribute__ ((cleanup (container_ref_release)))

/* An error unless the status is one of allowed (bits 1 << STATUS_*):
 * "cannot start container `x`: it is running". */
int container_ref_need (const struct container_ref *r, const char *what, unsigned allowed, shim_error_t *err);
#define ST(s) (1u << (s))

/* SIG to init, or with ALL to every process of the cgroup; recorded in the
 * state dir for the verdict once delivered to a live init (an exited init
 * is "not running" without ALL, and is not recorded with it). */
int container_ref_signal (struct container_ref *r, int sig, bool all, shim_error_t *err);

/* A pidfd of init, certainly init (its start time checked): it polls
 * readable when init exits.  An error when init is gone. */
int container_ref_init_pidfd (const struct container_ref *r, shim_error_t *err);

/* Until init is gone (it is not our child). */
int container_ref_wait_gone (const struct container_ref *r, shim_error_t *err);

#endif
