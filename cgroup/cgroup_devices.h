/* SPDX-License-Identifier: Apache-2.0 */
/* linux.resources.devices on cgroup v2: a BPF_PROG_TYPE_CGROUP_DEVICE
 * program made from the rules and attached to the container's cgroup. */
#ifndef SHIM_CGROUP_DEVICES_H
#define SHIM_CGROUP_DEVICES_H

#include <linux/bpf.h>
#include <stddef.h>

#include "cgroup/cgroup.h"

/* The program for RULES (pure; the caller frees *out).  How it decides is
 * said at the top of cgroup_devices.c. */
int cgroup_devices_program (const struct cgroup_device_rule *rules, size_t n, struct bpf_insn **out, size_t *len,
                            shim_error_t *err);

/* Load it and attach it to the cgroup directory CGROUP_FD (replacing device
 * programs attached there before).  Errors name linux.resources.devices. */
int cgroup_devices_apply (int cgroup_fd, const struct cgroup_device_rule *rules, size_t n, shim_error_t *err);

/* runc's default rules, which every container gets after its own (the
 * list at the top of cgroup_devices.c); *n is their number. */
const struct cgroup_device_rule *cgroup_devices_defaults (size_t *n);

#endif
