/* SPDX-License-Identifier: Apache-2.0 */
/* The per-container state directory under --root (default /run/shim). */
#ifndef SHIM_STATE_H
#define SHIM_STATE_H

#include "error.h"

#define SHIM_DEFAULT_ROOT "/run/shim"

/* Container ids become directory and cgroup names: runc's alphabet. */
int state_validate_id (const char *id, shim_error_t *err);

/* Create ROOT/ID (mode 0700).  mkdir is the lock: of two callers with one id
 * exactly one succeeds, the other gets "already exists". Returns a dir fd. */
int state_create (const char *root, const char *id, shim_error_t *err);

/* Remove ROOT/ID and what is in it (regular files only). */
int state_remove (const char *root, const char *id, shim_error_t *err);

#endif
