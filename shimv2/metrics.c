/* SPDX-License-Identifier: Apache-2.0 */
/* Stats' answer (see metrics.h). */
#include "shimv2/metrics.h"

#include <string.h>

#include "common/util.h"
#include "containerd/cgroups_v1.pb-c.h"
#include "containerd/cgroups_v2.pb-c.h"
#include "containerd/shim.pb-c.h"
#include "shimv2/events.h"
#include "shimv2/reply.h"

/* v1's field names where memory.stat's key differs (the library's). */
static const char *const v1_renames[][2] = {
  { "pg_pg_in", "pgpgin" },
  { "pg_pg_out", "pgpgout" },
  { "pg_fault", "pgfault" },
  { "pg_maj_fault", "pgmajfault" },
  { "hierarchical_swap_limit", "hierarchical_memsw_limit" },
  { "total_pg_pg_in", "total_pgpgin" },
  { "total_pg_pg_out", "total_pgpgout" },
  { "total_pg_fault", "total_pgfault" },
  { "total_pg_maj_fault", "total_pgmajfault" },
};

/* Every number of the MemoryStat M from memory.stat's key of its name
 * (v1's renamed): both libraries map the keys one to one, and the
 * message's own descriptor lists them, so none is forgotten. */
static void
memory_stat_fill (ProtobufCMessage *m, const struct runtime_stats *st, bool v1)
{
  const ProtobufCMessageDescriptor *d = m->descriptor;
  size_t i, j;

  for (i = 0; i < d->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &d->fields[i];
      const char *key = f->name;
      if (f->type != PROTOBUF_C_TYPE_UINT64 || f->label != PROTOBUF_C_LABEL_NONE)
        continue;
      for (j = 0; v1 && j < sizeof v1_renames / sizeof v1_renames[0]; j++)
        if (strcmp (key, v1_renames[j][0]) == 0)
          key = v1_renames[j][1];
      *(uint64_t *) (void *) ((char *) m + f->offset) = runtime_stats_memory (st, key);
    }
}

/* The Metrics M in a StatsResponse. */
static int
reply_with (const ProtobufCMessage *m, uint8_t **out, size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__StatsResponse resp = CONTAINERD__TASK__V2__STATS_RESPONSE__INIT;
  Google__Protobuf__Any any;
  cleanup_free uint8_t *value = NULL;

  if (events_any (m, &any, &value, err) < 0)
    return -1;
  resp.stats = &any;
  return reply_msg (&resp.base, out, len, err);
}

static int
reply_v1 (const struct runtime_stats *st, uint8_t **out, size_t *len, shim_error_t *err)
{
  Io__Containerd__Cgroups__V1__Metrics m = IO__CONTAINERD__CGROUPS__V1__METRICS__INIT;
  Io__Containerd__Cgroups__V1__PidsStat pids = IO__CONTAINERD__CGROUPS__V1__PIDS_STAT__INIT;
  Io__Containerd__Cgroups__V1__CPUStat cpu = IO__CONTAINERD__CGROUPS__V1__CPUSTAT__INIT;
  Io__Containerd__Cgroups__V1__CPUUsage usage = IO__CONTAINERD__CGROUPS__V1__CPUUSAGE__INIT;
  Io__Containerd__Cgroups__V1__Throttle thr = IO__CONTAINERD__CGROUPS__V1__THROTTLE__INIT;
  Io__Containerd__Cgroups__V1__MemoryStat mem = IO__CONTAINERD__CGROUPS__V1__MEMORY_STAT__INIT;
  Io__Containerd__Cgroups__V1__MemoryEntry mu = IO__CONTAINERD__CGROUPS__V1__MEMORY_ENTRY__INIT;
  Io__Containerd__Cgroups__V1__MemoryEntry sw = IO__CONTAINERD__CGROUPS__V1__MEMORY_ENTRY__INIT;

  /* pids.max's "max" is 0, as the v1 library reads it. */
  pids.current = st->cg.pids_current;
  pids.limit = st->cg.pids_limit;
  usage.total = st->cg.cpu_total;
  usage.kernel = st->cg.cpu_kernel;
  usage.user = st->cg.cpu_user;
  thr.periods = st->cg.cpu_periods;
  thr.throttled_periods = st->cg.cpu_throttled_periods;
  thr.throttled_time = st->cg.cpu_throttled_time;
  cpu.usage = &usage;
  cpu.throttling = &thr;
  memory_stat_fill (&mem.base, st, true);
  /* No limit: the kernel's own figure, which memory.stat's hierarchical
   * limit shows (what the library reads from limit_in_bytes then). */
  mu.limit = st->cg.memory_limit ? st->cg.memory_limit : mem.hierarchical_memory_limit;
  mu.usage = st->cg.memory_usage;
  mu.max = st->cg.memory_max_usage;
  mu.failcnt = st->cg.memory_failcnt;
  /* Swap alone (memsw less memory), as `events --stats` says it. */
  sw.usage = st->cg.swap_usage;
  sw.limit = st->cg.swap_limit;
  mem.usage = &mu;
  mem.swap = &sw;
  m.pids = &pids;
  m.cpu = &cpu;
  m.memory = &mem;
  return reply_with (&m.base, out, len, err);
}

/* A limit that is no limit: "max", which the v2 library reads as the
 * largest uint64 (cgroup_stats says 0). */
static uint64_t
v2_limit (uint64_t v)
{
  return v ? v : UINT64_MAX;
}

static int
reply_v2 (const struct runtime_stats *st, uint8_t **out, size_t *len, shim_error_t *err)
{
  Io__Containerd__Cgroups__V2__Metrics m = IO__CONTAINERD__CGROUPS__V2__METRICS__INIT;
  Io__Containerd__Cgroups__V2__PidsStat pids = IO__CONTAINERD__CGROUPS__V2__PIDS_STAT__INIT;
  Io__Containerd__Cgroups__V2__CPUStat cpu = IO__CONTAINERD__CGROUPS__V2__CPUSTAT__INIT;
  Io__Containerd__Cgroups__V2__MemoryStat mem = IO__CONTAINERD__CGROUPS__V2__MEMORY_STAT__INIT;

  pids.current = st->cg.pids_current;
  pids.limit = v2_limit (st->cg.pids_limit);
  cpu.usage_usec = st->cg.cpu_total / 1000;
  cpu.user_usec = st->cg.cpu_user / 1000;
  cpu.system_usec = st->cg.cpu_kernel / 1000;
  cpu.nr_periods = st->cg.cpu_periods;
  cpu.nr_throttled = st->cg.cpu_throttled_periods;
  cpu.throttled_usec = st->cg.cpu_throttled_time / 1000;
  memory_stat_fill (&mem.base, st, false);
  mem.usage = st->cg.memory_usage;
  mem.usage_limit = v2_limit (st->cg.memory_limit);
  mem.max_usage = st->cg.memory_max_usage;
  /* memory.swap.max of 0 is common (no swap): cgroup_stats cannot tell it
   * from "max", so it is given as read. */
  mem.swap_usage = st->cg.swap_usage;
  mem.swap_limit = st->cg.swap_limit;
  m.pids = &pids;
  m.cpu = &cpu;
  m.memory = &mem;
  return reply_with (&m.base, out, len, err);
}

int
metrics_reply (const struct runtime_stats *st, uint8_t **out, size_t *len, shim_error_t *err)
{
  return st->v1 ? reply_v1 (st, out, len, err) : reply_v2 (st, out, len, err);
}
