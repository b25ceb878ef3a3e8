/* SPDX-License-Identifier: Apache-2.0 */
/* Evidence for the verdict's unit tests (test_verdict.c,
 * test_verdict_names.c): counters, snapshots of a 64 MiB container, and the
 * kernel log's records of one kill. */
#ifndef SHIM_TEST_VERDICT_FIXTURE_H
#define SHIM_TEST_VERDICT_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "cgroup/cgroup_files.h"
#include "verdict/verdict.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

/* Counters of one memory.events file; ABSENT for a key the kernel lacks. */
#define ABSENT (-1)
#define Z { 0, 0, 0 }
struct cnt
{
  int oom, kill, group;
};

/* How init ended. */
enum st_kind
{
  ST_NONE, /* the hook: no wait status */
  ST_EXIT,
  ST_SIG,
};

/* Which snapshots exist. */
enum snaps
{
  S_BOTH,       /* baseline and final */
  S_NO_BASE,    /* final only */
  S_NONE,       /* neither */
  S_NO_EVENTS,  /* both, but without memory.events* (no memory controller) */
  S_AT_OOM,     /* baseline and at_oom (its counters = final's), no final */
  S_NO_LOCAL,   /* both, memory.events only (kernel before 5.2) */
  S_NO_FINAL,   /* baseline only: the cgroup was gone before the last read */
};

/* What the kernel log says (verdict_input.kmsg), for the container whose
 * kernel path is /shim/c1. */
enum km_kind
{
  K_NONE,   /* no reader */
  K_EMPTY,  /* read, no OOM kill */
  K_OWN,    /* python3 in /shim/c1/leaf, killed for /shim/c1's limit */
  K_ANC,    /* the same victim, for /shim's limit */
  K_HOST,   /* the same victim, a host-wide OOM */
  K_NESTED, /* the same victim, for /shim/c1/leaf's own limit */
  K_LOST,   /* K_OWN, but records were lost */
  K_DENIED, /* no access */
};

/* The surviving ancestor's counters (verdict_input.ancestor_*). */
enum anc_kind
{
  A_NONE,
  A_SAME,    /* its oom_kill did not change */
  A_CHANGED, /* it rose */
  A_SAME_LOCALEVENTS, /* A_SAME, on a mount with memory_localevents */
  A_SAME_LE_UNKNOWN,  /* A_SAME, whether the mount has it not known */
};

static inline void
set_events (struct cg_memory_events *e, struct cnt c)
{
  memset (e, 0, sizeof *e);
  e->have = CG_EV_LOW | CG_EV_HIGH | CG_EV_MAX | CG_EV_OOM | CG_EV_OOM_KILL;
  e->oom = (uint64_t) c.oom;
  e->oom_kill = (uint64_t) c.kill;
  if (c.group != ABSENT)
    {
      e->have |= CG_EV_OOM_GROUP_KILL;
      e->oom_group_kill = (uint64_t) c.group;
    }
}

/* A snapshot of a 64 MiB container that peaked at its limit. */
static inline void
make_snap (struct cg_snapshot *s, struct cnt local, struct cnt tree, enum snaps how)
{
  memset (s, 0, sizeof *s);
  s->have = CG_SNAP_MAX | CG_SNAP_PEAK | CG_SNAP_SWAP_MAX | CG_SNAP_CGROUP_EVENTS;
  s->memory_max = 64 * MIB;
  s->memory_peak = 64 * MIB;
  s->memory_swap_max = 0;
  s->cgroup_events.have = CG_CEV_POPULATED | CG_CEV_FROZEN;
  if (how == S_NO_EVENTS)
    return;
  set_events (&s->events, tree);
  s->have |= CG_SNAP_EVENTS;
  if (how != S_NO_LOCAL)
    {
      set_events (&s->events_local, local);
      s->have |= CG_SNAP_EVENTS_LOCAL;
    }
}

/* One kill in the kernel log: python3 (pid 4121, 498 MiB anonymous) in
 * /shim/c1/leaf, for OOM_MEMCG's limit ("": host-wide). */
static inline void
make_kill (struct kmsg_oom_kill *k, const char *oom_memcg)
{
  memset (k, 0, sizeof *k);
  k->seq = 7;
  k->memcg = oom_memcg[0] != '\0';
  k->have_summary = k->have_victim = true;
  snprintf (k->oom_memcg, sizeof k->oom_memcg, "%s", oom_memcg);
  snprintf (k->task_memcg, sizeof k->task_memcg, "%s", "/shim/c1/leaf");
  snprintf (k->comm, sizeof k->comm, "%s", "python3");
  k->pid = 4121;
  k->anon_rss_kb = 498 * 1024;
  k->file_rss_kb = 1024;
}

/* The log of KIND with N victim records: python3 and N - 1 members of a
 * memory.oom.group kill (`sh`, pids 4122...: a "Killed process" record
 * without a summary or task_memcg), as the kernel logs every kill it
 * counts. */
static inline void
make_kmsg_n (struct kmsg_evidence *k, enum km_kind kind, int n)
{
  memset (k, 0, sizeof *k);
  k->access = kind == K_DENIED ? KMSG_DENIED : KMSG_READ;
  k->lost = kind == K_LOST;
  if (kind == K_OWN || kind == K_LOST || kind == K_ANC || kind == K_HOST || kind == K_NESTED)
    {
      k->n = 1;
      make_kill (&k->kills[0], kind == K_ANC    ? "/shim"
                               : kind == K_HOST ? ""
                               : kind == K_NESTED ? "/shim/c1/leaf"
                                                  : "/shim/c1");
      for (int i = 1; i < n && i < KMSG_MAX_KILLS; i++, k->n++)
        {
          k->kills[i] = k->kills[0];
          k->kills[i].have_summary = false;
          k->kills[i].task_memcg[0] = '\0';
          k->kills[i].pid = 4121 + i;
          snprintf (k->kills[i].comm, sizeof k->kills[i].comm, "%s", "sh");
        }
    }
}

static inline void
make_kmsg (struct kmsg_evidence *k, enum km_kind kind)
{
  make_kmsg_n (k, kind, 1);
}

#endif
