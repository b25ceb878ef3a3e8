/* SPDX-License-Identifier: Apache-2.0 */
/* What an update writes that create writes too, decided without a kernel:
 * cgroup v2's memory.swap.max and create's memory.oom.group=1 default
 * (the v2 and systemd managers write what these say).  An update writes
 * only what it is given; the v1 side of the
 * same rule runs on a fake cgroupfs in test_cgroup_v1.c. */
#include <string.h>

#include "cgroup/cgroup.h"
#include "tap.h"

static const char *
swap_max (const struct cgroup_resources *r)
{
  static char buf[64];
  cgroup_v2_swap_max (r, buf, sizeof buf);
  return buf;
}

static void
test_swap_max (void)
{
  struct cgroup_resources r = { .has_memory_limit = true, .memory_limit = 67108864 };

  /* create: a limit without swap is no swap */
  is_str (swap_max (&r), "0", "create, limit without swap: memory.swap.max 0");
  r.has_memory_swap = true;
  r.memory_swap = 268435456;
  is_str (swap_max (&r), "201326592", "create, limit and swap: swap alone");
  r.memory_swap = -1;
  is_str (swap_max (&r), "max", "create, swap -1: max");

  /* update: swap as it was unless given (runc's fs2 setMemory) */
  r = (struct cgroup_resources){ .has_memory_limit = true, .memory_limit = 67108864, .update = true };
  is_str (swap_max (&r), "", "update --memory without --memory-swap: memory.swap.max not written");
  r.has_memory_swap = true;
  r.memory_swap = 134217728;
  is_str (swap_max (&r), "67108864", "update with both: swap alone");
  r.memory_swap = -1;
  is_str (swap_max (&r), "max", "update --memory-swap -1: max");
  r = (struct cgroup_resources){ .has_memory_limit = true, .memory_limit = -1, .update = true };
  is_str (swap_max (&r), "max", "update --memory -1 without swap: swap unlimited too, as runc");
  r = (struct cgroup_resources){ .has_pids_limit = true, .pids_limit = 10, .update = true };
  is_str (swap_max (&r), "", "update of pids only: memory.swap.max not written");
}

static void
test_oom_group (void)
{
  struct util_kv off = { (char *) "memory.oom.group", (char *) "0" };
  struct cgroup_resources r = { .has_memory_limit = true, .memory_limit = 67108864 };

  ok (cgroup_v2_oom_group_default (&r), "create: memory.oom.group=1");
  r.unified = &off;
  r.n_unified = 1;
  ok (!cgroup_v2_oom_group_default (&r), "create with unified \"0\": not the default (unified writes 0)");
  r = (struct cgroup_resources){ .has_pids_limit = true, .pids_limit = 10, .update = true };
  ok (!cgroup_v2_oom_group_default (&r), "update of pids: memory.oom.group not written");
  r = (struct cgroup_resources){ .has_memory_limit = true, .memory_limit = 67108864, .update = true };
  ok (!cgroup_v2_oom_group_default (&r), "update --memory: memory.oom.group not written");
}

int
main (void)
{
  test_swap_max ();
  test_oom_group ();
  return done_testing ();
}
