/* SPDX-License-Identifier: Apache-2.0 */
/* The figures of `events --stats` (struct cgroup_stats), read from the
 * files of this host's cgroups: the v2 ones in the container's cgroup, or
 * the v1 ones in the container's directory of each v1 hierarchy (cpu and
 * cpuacct may be one hierarchy or two: each file is read where its
 * controller is). */
#include "cgroup/cgroup.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup_internal.h"
#include "common/util.h"

/* KEY's value in a flat keyed file's text (cpu.stat, cpuacct.stat), or 0. */
static uint64_t
keyed_value (const char *text, const char *key)
{
  size_t klen = strlen (key);
  const char *p = text;
  uint64_t v = 0;

  while (p && *p)
    {
      if (strncmp (p, key, klen) == 0 && p[klen] == ' ')
        {
          sscanf (p + klen + 1, "%" SCNu64, &v);
          return v;
        }
      p = strchr (p, '\n');
      if (p)
        p++;
    }
  return 0;
}

/* FILE's text in DIRFD (-1: none), or NULL. */
static char *
text_of (int dirfd, const char *file)
{
  char *text = NULL;
  shim_error_t tmp = NULL;

  if (dirfd < 0 || util_read_file_at (dirfd, file, &text, NULL, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return NULL;
    }
  return text;
}

/* A single number (memory.current), or a limit ("max", and v1's
 * PAGE_COUNTER_MAX: 0), 0 when the file is missing. */
static uint64_t
value_of (int dirfd, const char *file, bool limit)
{
  cleanup_free char *text = text_of (dirfd, file);
  shim_error_t tmp = NULL;
  uint64_t v = 0;

  if (text == NULL)
    return 0;
  if (!limit)
    util_parse_u64 (text, &v);
  else if (cg_parse_limit_file (file, text, &v, &tmp) < 0 || v == CG_UNLIMITED || v >= CGROUP_V1_UNLIMITED_FROM)
    v = 0;
  shim_error_release (&tmp);
  return v;
}

static void
stats_v2 (int cgfd, struct cgroup_stats *s)
{
  cleanup_free char *cpu = text_of (cgfd, "cpu.stat");

  /* cpu.stat's times are microseconds. */
  s->cpu_total = keyed_value (cpu, "usage_usec") * 1000;
  s->cpu_kernel = keyed_value (cpu, "system_usec") * 1000;
  s->cpu_user = keyed_value (cpu, "user_usec") * 1000;
  s->cpu_periods = keyed_value (cpu, "nr_periods");
  s->cpu_throttled_periods = keyed_value (cpu, "nr_throttled");
  s->cpu_throttled_time = keyed_value (cpu, "throttled_usec") * 1000;
  s->memory_usage = value_of (cgfd, "memory.current", false);
  s->memory_max_usage = value_of (cgfd, "memory.peak", false);
  s->memory_limit = value_of (cgfd, "memory.max", true);
  s->swap_usage = value_of (cgfd, "memory.swap.current", false);
  s->swap_limit = value_of (cgfd, "memory.swap.max", true);
  s->pids_current = value_of (cgfd, "pids.current", false);
  s->pids_limit = value_of (cgfd, "pids.max", true);
}

static uint64_t
minus (uint64_t a, uint64_t b)
{
  return a > b ? a - b : 0;
}

static void
stats_v1 (const struct cgroup_v1 *v, struct cgroup_stats *s)
{
  int acct = cgroup_v1_dirfd (v, "cpuacct"), cpufd = cgroup_v1_dirfd (v, "cpu");
  int mem = cgroup_v1_dirfd (v, "memory"), pids = cgroup_v1_dirfd (v, "pids");
  cleanup_free char *ticks = text_of (acct, "cpuacct.stat");
  cleanup_free char *cpu = text_of (cpufd, "cpu.stat");
  long hz = sysconf (_SC_CLK_TCK);
  uint64_t tick_ns = hz > 0 ? 1000000000ULL / (uint64_t) hz : 10000000ULL;
  uint64_t memsw_limit;

  /* cpuacct.usage is ns; cpuacct.stat's user and system are USER_HZ
   * ticks of the same time, each floored to a tick. */
  s->cpu_total = value_of (acct, "cpuacct.usage", false);
  s->cpu_user = keyed_value (ticks, "user") * tick_ns;
  s->cpu_kernel = keyed_value (ticks, "system") * tick_ns;
  s->cpu_periods = keyed_value (cpu, "nr_periods");
  s->cpu_throttled_periods = keyed_value (cpu, "nr_throttled");
  s->cpu_throttled_time = keyed_value (cpu, "throttled_time");
  s->memory_usage = value_of (mem, "memory.usage_in_bytes", false);
  s->memory_max_usage = value_of (mem, "memory.max_usage_in_bytes", false);
  s->memory_limit = value_of (mem, "memory.limit_in_bytes", true);
  s->memory_failcnt = value_of (mem, "memory.failcnt", false);
  /* memsw is memory + swap: swap alone, as v2's memory.swap.* (a swap
   * limit without a memory limit is no limit on swap alone). */
  s->swap_usage = minus (value_of (mem, "memory.memsw.usage_in_bytes", false), s->memory_usage);
  memsw_limit = value_of (mem, "memory.memsw.limit_in_bytes", true);
  s->swap_limit = memsw_limit && s->memory_limit ? minus (memsw_limit, s->memory_limit) : 0;
  s->pids_current = value_of (pids, "pids.current", false);
  s->pids_limit = value_of (pids, "pids.max", true);
}

void
cgroup_stats_read (const struct cgroup *cg, struct cgroup_stats *out)
{
  memset (out, 0, sizeof *out);
  if (cg->manager == &cgroup_v1_manager && cg->v1)
    stats_v1 (cg->v1, out);
  else if (cg->manager && cg->dirfd >= 0)
    stats_v2 (cg->dirfd, out);
}
