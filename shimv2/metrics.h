/* SPDX-License-Identifier: Apache-2.0 */
/* Stats' answer, as containerd's runc shim gives it: the cgroup figures
 * (runtime_stats) as containerd's cgroups library's Metrics in a
 * google.protobuf.Any, io.containerd.cgroups.v1.Metrics when the
 * container's cgroup is the v1 manager's (a hybrid or v1 host), else
 * io.containerd.cgroups.v2.Metrics: containerd's CRI reads cpu usage and
 * the memory working set (usage less inactive file) from them, ctr's
 * `task metrics` prints them. */
#ifndef SHIMV2_METRICS_H
#define SHIMV2_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "runtime/runtime.h"

/* A StatsResponse for ST as a ttrpc response (*out malloc'd). */
int metrics_reply (const struct runtime_stats *st, uint8_t **out, size_t *len, shim_error_t *err);

#endif
