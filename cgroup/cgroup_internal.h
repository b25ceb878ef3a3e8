/* SPDX-License-Identifier: Apache-2.0 */
/* What hierarchy.c gives cgroup.c (selection, dispatch) and the backends: the
 * controllers by name, and the backends' tables.  Only for cgroup/. */
#ifndef SHIM_CGROUP_INTERNAL_H
#define SHIM_CGROUP_INTERNAL_H

#include "cgroup/cgroup.h"

/* The controllers linux.resources can ask for, as bits. */
enum
{
  CGROUP_CTRL_MEMORY = 1 << 0,
  CGROUP_CTRL_PIDS = 1 << 1,
  CGROUP_CTRL_CPU = 1 << 2,
  CGROUP_CTRL_CPUSET = 1 << 3,
  CGROUP_CTRL_IO = 1 << 4,
};
#define CGROUP_N_CTRL 5

/* "memory", "pids", "cpu", "cpuset", "io", by bit number. */
extern const char *const cgroup_ctrl_names[CGROUP_N_CTRL];

/* What the spec asks to be limited: these controllers must work. */
unsigned cgroup_required_controllers (const struct cgroup_resources *r);

/* The name of the first controller in mask, for messages. */
const char *cgroup_first_ctrl (unsigned mask);

/* Whether a linux.resources.unified key (`memory.high`) belongs to
 * controller number i. */
bool cgroup_key_is_ctrl (const char *key, size_t i);

/* The backends, which cgroup.c chooses from.  cgroupfs v2: cgroup/v2.c. */
extern const struct cgroup_manager cgroup_v2_manager;

#endif
