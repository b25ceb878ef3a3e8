/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict rules (see verdict.h for the rules and the decisions made where
 * DESIGN.md is silent).  Pure: no I/O, no allocation except in the JSON
 * output, so every rule is tested from tables of snapshots. */
#include "verdict/verdict.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

const char *
verdict_reason_name (enum verdict_reason r)
{
  switch (r)
    {
    case VERDICT_OOM_KILLED:
      return "OOMKilled";
    case VERDICT_KILLED:
      return "Killed";
    case VERDICT_SIGNALED:
      return "Signaled";
    case VERDICT_EXITED:
      return "Exited";
    default:
      return "Unknown";
    }
}

void
verdict_format_size (uint64_t bytes, char *buf, size_t len)
{
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  unsigned u = 0;
  unsigned __int128 unit = 1, tenths;

  while (u + 1 < sizeof units / sizeof units[0] && bytes >= unit * 1024)
    {
      unit *= 1024;
      u++;
    }
  if (u == 0)
    {
      snprintf (buf, len, "%llu B", (unsigned long long) bytes);
      return;
    }
  /* Round to one decimal; rounding up to 1024.0 moves to the next unit. */
  tenths = ((unsigned __int128) bytes * 10 + unit / 2) / unit;
  if (tenths >= 10240 && u + 1 < sizeof units / sizeof units[0])
    {
      unit *= 1024;
      u++;
      tenths = ((unsigned __int128) bytes * 10 + unit / 2) / unit;
    }
  if (tenths % 10)
    snprintf (buf, len, "%llu.%u %s", (unsigned long long) (tenths / 10), (unsigned) (tenths % 10),
              units[u]);
  else
    snprintf (buf, len, "%llu %s", (unsigned long long) (tenths / 10), units[u]);
}

/* ---- the evidence ------------------------------------------------------ */

/* The counters as deltas, and what they say. */
enum kill_class
{
  K_NONE,      /* nothing was OOM-killed in C's tree */
  K_BELONGS,   /* the kill belongs to the container (scope says whose limit) */
  K_AMBIGUOUS, /* C's limit and nested limits both ran out; kills only in the tree */
  K_NESTED,    /* kills only in nested cgroups, by their own limits */
};

struct evidence
{
  bool known;
  char why[160]; /* when !known */
  uint64_t l_oom, l_kill, l_group, t_oom, t_kill;
  bool have_group_key;
  enum kill_class cls;
  enum verdict_scope scope;
  bool decisive; /* a group kill: init went with it */
  uint64_t kills, nested;
  enum verdict_tri group_kill;
};

/* final - base for one key.  Returns false when final lacks the key or the
 * counter went down (another cgroup under the same path). */
static bool
delta (const struct cg_memory_events *fin, const struct cg_memory_events *base, unsigned bit,
       uint64_t fv, uint64_t bv, uint64_t *out, struct evidence *ev)
{
  if (!(fin->have & bit))
    return false;
  if (!(base->have & bit))
    bv = 0;
  if (fv < bv)
    {
      snprintf (ev->why, sizeof ev->why,
                "the OOM counters went down since create (the cgroup was recreated?)");
      return false;
    }
  *out = fv - bv;
  return true;
}

static const struct cg_snapshot *
counters_of (const struct cg_snapshot *s)
{
  return s && (s->have & CG_SNAP_EVENTS) ? s : NULL;
}

static void
read_counters (const struct verdict_input *in, struct evidence *ev)
{
  static const struct cg_snapshot zero;
  const struct cg_snapshot *fin = counters_of (in->final) ?: counters_of (in->at_oom);
  /* A baseline without counters is no baseline. */
  const struct cg_snapshot *base = counters_of (in->baseline) ?: &zero;
  struct cg_memory_events nolocal = { 0 };
  const struct cg_memory_events *fl, *bl;
  bool ok;

  ev->known = false;
  if (fin == NULL)
    {
      snprintf (ev->why, sizeof ev->why, "%s",
                in->final || in->at_oom ? "memory.events was not readable (no memory controller?)"
                                        : "no cgroup snapshot was taken");
      return;
    }
  fl = &fin->events_local;
  bl = &base->events_local;
  if (!(fin->have & CG_SNAP_EVENTS_LOCAL))
    {
      /* Kernels before 5.2 have only the tree counters.  local <= tree, so a
       * tree without kills proves there were none locally either; anything
       * else cannot be attributed. */
      nolocal.have = CG_EV_OOM | CG_EV_OOM_KILL;
      fl = bl = &nolocal;
    }

  ok = delta (fl, bl, CG_EV_OOM, fl->oom, bl->oom, &ev->l_oom, ev)
       && delta (fl, bl, CG_EV_OOM_KILL, fl->oom_kill, bl->oom_kill, &ev->l_kill, ev)
       && delta (&fin->events, &base->events, CG_EV_OOM, fin->events.oom, base->events.oom,
                 &ev->t_oom, ev)
       && delta (&fin->events, &base->events, CG_EV_OOM_KILL, fin->events.oom_kill,
                 base->events.oom_kill, &ev->t_kill, ev);
  if (!ok)
    {
      if (ev->why[0] == '\0')
        snprintf (ev->why, sizeof ev->why, "memory.events has no oom or oom_kill counter");
      return;
    }
  ev->have_group_key = delta (fl, bl, CG_EV_OOM_GROUP_KILL, fl->oom_group_kill,
                              bl->oom_group_kill, &ev->l_group, ev);
  if (!ev->have_group_key)
    {
      if (ev->why[0] != '\0')
        return; /* it went down */
      ev->l_group = 0;
    }
  if (fl == &nolocal && (ev->t_kill > 0 || (fin->events.have & CG_EV_OOM_GROUP_KILL
                                            && fin->events.oom_group_kill
                                                   > base->events.oom_group_kill)))
    {
      snprintf (ev->why, sizeof ev->why,
                "the kernel has no memory.events.local (before 5.2) to tell whose OOM kills the "
                "tree counted");
      return;
    }
  /* Counters only rise, so without a baseline zeros are still trustworthy;
   * anything else may predate this container. */
  if (base == &zero && (ev->l_oom || ev->l_kill || ev->l_group || ev->t_oom || ev->t_kill))
    {
      snprintf (ev->why, sizeof ev->why,
                "no baseline was taken at create and the cgroup's OOM counters are not zero");
      return;
    }
  ev->known = true;
}

static void
classify (struct evidence *ev)
{
  bool own_limit_only = ev->l_oom > 0 && ev->t_oom == ev->l_oom;

  ev->scope = VERDICT_SCOPE_NONE;
  ev->kills = ev->nested = 0;
  ev->group_kill = VERDICT_NULL;
  ev->decisive = false;
  if (ev->l_group > 0 || ev->l_kill > 0 || (own_limit_only && ev->t_kill > 0)
      || (ev->t_kill > 0 && ev->t_oom == 0))
    {
      ev->cls = K_BELONGS;
      ev->scope = ev->l_oom > 0 ? VERDICT_SCOPE_CONTAINER : VERDICT_SCOPE_ANCESTOR;
      /* Every OOM event in the tree was C's own (or an ancestor's): every kill
       * in the tree is the container's, including victims in nested leaves. */
      if (ev->t_oom == ev->l_oom)
        ev->kills = ev->t_kill;
      else
        {
          ev->kills = ev->l_kill;
          ev->nested = ev->t_kill > ev->l_kill ? ev->t_kill - ev->l_kill : 0;
        }
      if (ev->scope == VERDICT_SCOPE_CONTAINER && ev->have_group_key)
        ev->group_kill = ev->l_group > 0 ? VERDICT_TRUE : VERDICT_FALSE;
      ev->decisive = ev->l_group > 0 || ev->scope == VERDICT_SCOPE_ANCESTOR;
    }
  else if (ev->t_kill > 0 && ev->l_oom > 0)
    {
      ev->cls = K_AMBIGUOUS;
      ev->scope = VERDICT_SCOPE_CONTAINER;
      ev->nested = ev->t_kill - ev->l_kill;
      if (ev->have_group_key)
        ev->group_kill = VERDICT_FALSE;
    }
  else if (ev->t_kill > 0)
    {
      ev->cls = K_NESTED;
      ev->nested = ev->t_kill > ev->l_kill ? ev->t_kill - ev->l_kill : 0;
      if (ev->have_group_key)
        ev->group_kill = VERDICT_FALSE;
    }
  else
    ev->cls = K_NONE;
}

/* ---- message pieces ---------------------------------------------------- */

struct sbuf
{
  char *p;
  size_t cap, used;
};

static void __attribute__ ((format (printf, 2, 3)))
put (struct sbuf *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (b->used + 1 >= b->cap)
    return;
  va_start (ap, fmt);
  n = vsnprintf (b->p + b->used, b->cap - b->used, fmt, ap);
  va_end (ap);
  if (n > 0)
    b->used = b->used + (size_t) n < b->cap ? b->used + (size_t) n : b->cap - 1;
}

static const char *
procs (uint64_t n)
{
  return n == 1 ? "process" : "processes";
}

static void
signal_name (int sig, char *buf, size_t len)
{
  const char *abbr = sig > 0 ? sigabbrev_np (sig) : NULL;

  if (abbr)
    snprintf (buf, len, "SIG%s", abbr);
  else
    snprintf (buf, len, "SIG%d", sig);
}

/* What filled memory, from memory.stat at the OOM: the largest of anonymous
 * memory, shmem (tmpfs, shm: it stays charged after the processes die and
 * counts inside `file`), the rest of the page cache, and kernel memory. */
static void
put_breakdown (struct sbuf *b, const struct cg_snapshot *at_oom)
{
  const struct cg_memory_stat *st;
  uint64_t anon, shmem, cache, kernel;
  char sz[32];

  if (at_oom == NULL || !(at_oom->have & CG_SNAP_STAT))
    return;
  st = &at_oom->stat;
  anon = st->have & CG_STAT_ANON ? st->anon : 0;
  shmem = st->have & CG_STAT_SHMEM ? st->shmem : 0;
  cache = st->have & CG_STAT_FILE && st->file > shmem ? st->file - shmem : 0;
  kernel = st->have & CG_STAT_KERNEL ? st->kernel : 0;
  if (anon == 0 && shmem == 0 && cache == 0 && kernel == 0)
    return;
  if (shmem > anon && shmem >= cache && shmem >= kernel)
    {
      verdict_format_size (shmem, sz, sizeof sz);
      put (b, "; most of it tmpfs / shared memory: %s shmem", sz);
    }
  else if (anon >= cache && anon >= kernel)
    {
      verdict_format_size (anon, sz, sizeof sz);
      put (b, "; %s anonymous memory", sz);
    }
  else if (kernel >= cache)
    {
      verdict_format_size (kernel, sz, sizeof sz);
      put (b, "; %s%s kernel memory", st->have & CG_STAT_KERNEL_ESTIMATED ? "at least " : "", sz);
    }
  else
    {
      verdict_format_size (cache, sz, sizeof sz);
      put (b, "; %s page cache", sz);
    }
}

/* "(peak 64 MiB, 3 processes killed as a group; 58 MiB anonymous memory)" */
static void
put_oom_details (struct sbuf *b, const struct verdict *v, const struct evidence *ev,
                 const struct cg_snapshot *at_oom)
{
  char sz[32];
  const char *sep = "";

  put (b, " (");
  if (v->have_memory_peak)
    {
      verdict_format_size (v->memory_peak, sz, sizeof sz);
      put (b, "peak %s", sz);
      sep = ", ";
    }
  if (ev->kills > 0)
    {
      put (b, "%s%llu %s killed%s", sep, (unsigned long long) ev->kills, procs (ev->kills),
           ev->l_group > 0 ? " as a group" : "");
      sep = ", ";
    }
  else if (ev->l_group > 0)
    {
      put (b, "%skilled as a group", sep);
      sep = ", ";
    }
  if (ev->nested > 0)
    put (b, "%splus %llu OOM %s in nested cgroups", sep, (unsigned long long) ev->nested,
         ev->nested == 1 ? "kill" : "kills");
  put_breakdown (b, at_oom);
  /* Nothing was added: drop the " (". */
  if (b->used >= 2 && strcmp (b->p + b->used - 2, " (") == 0)
    b->p[b->used -= 2] = '\0';
  else
    put (b, ")");
}

/* "container x was OOM-killed: it hit its 64 MiB memory limit (...)" */
static void
put_oom_killed (struct sbuf *b, const struct verdict_input *in, const struct verdict *v,
                const struct evidence *ev)
{
  char sz[32] = "";

  if (v->have_memory_limit)
    verdict_format_size (v->memory_limit, sz, sizeof sz);
  put (b, "container %s was OOM-killed%s: ", in->container_id,
       in->have_status ? "" : " (its exit status was not known here)");
  if (ev->scope == VERDICT_SCOPE_CONTAINER)
    put (b, "it hit its %s%smemory limit", sz, sz[0] ? " " : "");
  else
    put (b, "a parent cgroup's or the host's memory ran out, not its own%s%s limit",
         sz[0] ? " " : "", sz);
  put_oom_details (b, v, ev, in->at_oom);
}

/* What else the counters say, after "exited with code 3" and the like. */
static void
put_counter_note (struct sbuf *b, const struct evidence *ev)
{
  if (!ev->known)
    put (b, "; whether anything in it was OOM-killed is unknown: %s", ev->why);
  else if (ev->cls == K_BELONGS)
    put (b, "; %s in the container %s OOM-killed%s (kills %llu) while init survived",
         ev->kills == 1 ? "a process" : "processes", ev->kills == 1 ? "was" : "were",
         ev->scope == VERDICT_SCOPE_ANCESTOR ? " when a parent cgroup's or the host's memory ran out"
                                             : "",
         (unsigned long long) ev->kills);
  else if (ev->cls == K_NESTED || ev->cls == K_AMBIGUOUS)
    put (b, "; %llu %s in nested cgroups %s OOM-killed", (unsigned long long) ev->nested,
         procs (ev->nested), ev->nested == 1 ? "was" : "were");
}

/* "the 2 OOM kills counted were in nested cgroups with their own limits" */
static void
put_nested (struct sbuf *b, uint64_t n)
{
  if (n == 1)
    put (b, "the one OOM kill counted was in a nested cgroup with its own limit");
  else
    put (b, "the %llu OOM kills counted were in nested cgroups with their own limits",
         (unsigned long long) n);
}

static void
set_unknown (struct verdict *v, const char *why)
{
  v->oom_killed = VERDICT_NULL;
  snprintf (v->unknown_reason, sizeof v->unknown_reason, "%s", why);
}

/* Fill unknown_reason for the ambiguous cases and return it. */
static const char *
ambiguous_why (struct verdict *v, const struct evidence *ev)
{
  snprintf (v->unknown_reason, sizeof v->unknown_reason,
            "its own memory limit ran out while nested cgroups ran out of theirs, and the %llu OOM "
            "%s counted cannot be told apart",
            (unsigned long long) ev->t_kill, ev->t_kill == 1 ? "kill" : "kills");
  v->oom_killed = VERDICT_NULL;
  return v->unknown_reason;
}

/* ---- the rules --------------------------------------------------------- */

static void
decide_sigkill (const struct verdict_input *in, struct verdict *v, const struct evidence *ev,
                struct sbuf *b)
{
  bool runtime_sent = in->signals_sent & VERDICT_SIGBIT (SIGKILL);
  const char *by = runtime_sent ? " sent by the runtime" : "";

  v->reason = VERDICT_KILLED;
  v->killed_by = runtime_sent ? VERDICT_BY_RUNTIME : VERDICT_BY_NONE;
  if (!ev->known)
    {
      set_unknown (v, ev->why);
      put (b, "container %s was killed by SIGKILL%s; whether by the OOM killer is unknown: %s",
           in->container_id, by, ev->why);
    }
  else if (ev->cls == K_BELONGS && runtime_sent && !ev->decisive)
    {
      set_unknown (v, "the runtime sent SIGKILL and the OOM killer killed processes one by one, "
                      "not as a group");
      put (b,
           "container %s was killed by SIGKILL; whether by the runtime or the OOM killer is "
           "unknown: the runtime sent SIGKILL and %llu %s in it %s OOM-killed, not as a group",
           in->container_id, (unsigned long long) ev->kills, procs (ev->kills),
           ev->kills == 1 ? "was" : "were");
    }
  else if (ev->cls == K_BELONGS)
    {
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      v->killed_by = VERDICT_BY_NONE;
      put_oom_killed (b, in, v, ev);
      if (runtime_sent)
        put (b, "; the runtime had also sent SIGKILL");
    }
  else if (ev->cls == K_AMBIGUOUS)
    put (b, "container %s was killed by SIGKILL%s; whether by the OOM killer is unknown: %s",
         in->container_id, by, ambiguous_why (v, ev));
  else
    {
      v->oom_killed = VERDICT_FALSE;
      v->killed_by = runtime_sent ? VERDICT_BY_RUNTIME : VERDICT_BY_OUTSIDE;
      put (b, "container %s was killed by SIGKILL %s (not an OOM kill: ", in->container_id,
           runtime_sent ? "sent by the runtime" : "from outside the runtime");
      if (ev->cls == K_NESTED)
        put_nested (b, ev->nested);
      else
        put (b, "no OOM kill was counted in its cgroup");
      put (b, ")");
    }
}

/* The hook: no wait status.  Only a group kill says init died of it. */
static void
decide_without_status (const struct verdict_input *in, struct verdict *v,
                       const struct evidence *ev, struct sbuf *b)
{
  bool sent_kill = (in->signals_sent & VERDICT_SIGBIT (SIGKILL)) != 0;

  v->reason = VERDICT_UNKNOWN;
  /* `shim kill` sent SIGKILL and no group OOM kill took the container:
   * stopped by the runtime (create/start, where nobody has the status). */
  if (sent_kill && !(ev->known && ev->cls == K_BELONGS && ev->decisive))
    {
      v->reason = VERDICT_KILLED;
      v->killed_by = VERDICT_BY_RUNTIME;
      if (!ev->known)
        {
          set_unknown (v, ev->why);
          put (b, "container %s was stopped by the runtime's SIGKILL; whether it was also OOM-killed is "
                  "unknown: %s", in->container_id, ev->why);
        }
      else if (ev->cls == K_NONE || ev->cls == K_NESTED)
        {
          v->oom_killed = VERDICT_FALSE;
          put (b, "container %s was stopped by the runtime's SIGKILL, with no OOM kill %s",
               in->container_id, ev->cls == K_NESTED ? "of its own" : "counted in its cgroup");
          if (ev->cls == K_NESTED)
            {
              put (b, "; ");
              put_nested (b, ev->nested);
            }
        }
      else
        {
          set_unknown (v, "processes were OOM-killed one by one as well");
          put (b, "container %s was stopped by the runtime's SIGKILL; processes in it were also "
                  "OOM-killed, not as a group, so either may have ended init", in->container_id);
        }
      return;
    }
  if (!ev->known)
    {
      set_unknown (v, ev->why);
      put (b,
           "container %s stopped; its exit status was not known here and whether it was "
           "OOM-killed is unknown: %s",
           in->container_id, ev->why);
    }
  else if (ev->cls == K_BELONGS && ev->decisive)
    {
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      put_oom_killed (b, in, v, ev);
    }
  else if (ev->cls == K_BELONGS)
    {
      set_unknown (v, "processes were OOM-killed one by one, not as a group, and init's exit "
                      "status was not known");
      put (b,
           "container %s stopped; %llu %s in it %s OOM-killed, not as a group, and without "
           "init's exit status it is unknown whether init was one of them",
           in->container_id, (unsigned long long) ev->kills, procs (ev->kills),
           ev->kills == 1 ? "was" : "were");
    }
  else if (ev->cls == K_AMBIGUOUS)
    put (b, "container %s stopped; whether it was OOM-killed is unknown: %s", in->container_id,
         ambiguous_why (v, ev));
  else
    {
      v->oom_killed = VERDICT_FALSE;
      put (b, "container %s stopped with no OOM kill %s (its exit status was not known here)",
           in->container_id, ev->cls == K_NESTED ? "of its own" : "counted in its cgroup");
      if (ev->cls == K_NESTED)
        {
          put (b, "; ");
          put_nested (b, ev->nested);
        }
    }
}

/* "--memory 128M": double the limit, whole GiB when that is exact, else MiB
 * rounded up. */
static void
put_hint (struct verdict *v, const struct evidence *ev)
{
  struct sbuf b = { v->hint, sizeof v->hint, 0 };

  if (!ev->known || ev->cls != K_BELONGS)
    return;
  if (ev->scope == VERDICT_SCOPE_ANCESTOR)
    {
      put (&b, "raise the memory limit of the parent cgroup (or free memory on the host): the "
               "container's own limit was not what ran out");
      return;
    }
  put (&b, "give it more memory: linux.resources.memory.limit in config.json");
  if (v->have_memory_limit && v->memory_limit <= (uint64_t) INT64_MAX / 2)
    {
      uint64_t twice = v->memory_limit * 2;
      if (twice % GIB == 0)
        put (&b, ", or --memory %lluG", (unsigned long long) (twice / GIB));
      else
        put (&b, ", or --memory %lluM", (unsigned long long) ((twice + MIB - 1) / MIB));
    }
}

static void
memory_figures (const struct verdict_input *in, struct verdict *v)
{
  /* The limit in force at the OOM is the one that ran out (`shim update` may
   * change it); the peak only grows, so the latest snapshot has the best. */
  const struct cg_snapshot *lim[] = { in->at_oom, in->final, in->baseline };
  const struct cg_snapshot *peak[] = { in->final, in->at_oom };

  for (size_t i = 0; i < 3; i++)
    if (lim[i] && (lim[i]->have & CG_SNAP_MAX))
      {
        v->have_memory_limit = lim[i]->memory_max != CG_UNLIMITED;
        v->memory_limit = v->have_memory_limit ? lim[i]->memory_max : 0;
        break;
      }
  for (size_t i = 0; i < 2; i++)
    if (peak[i] && (peak[i]->have & CG_SNAP_PEAK))
      {
        v->have_memory_peak = true;
        v->memory_peak = peak[i]->memory_peak;
        break;
      }
}

void
verdict_compute (const struct verdict_input *in, struct verdict *v)
{
  struct verdict_input named = *in;
  struct evidence ev = { 0 };
  struct sbuf b;
  char sig[24];

  memset (v, 0, sizeof *v);
  b = (struct sbuf){ v->message, sizeof v->message, 0 };
  if (named.container_id == NULL)
    named.container_id = "?";
  in = &named;
  v->memory_limit_enforced = in->memory_limit_enforced;
  v->oom_killed = VERDICT_NULL;
  memory_figures (in, v);

  read_counters (in, &ev);
  /* The specific cause first; "not enforced" only when nothing says more. */
  if (!ev.known && in->unavailable_reason && in->unavailable_reason[0])
    snprintf (ev.why, sizeof ev.why, "%s", in->unavailable_reason);
  else if (!ev.known && !in->memory_limit_enforced)
    snprintf (ev.why, sizeof ev.why, "memory limit not enforced");
  if (ev.known)
    {
      classify (&ev);
      v->have_oom = ev.cls != K_NONE;
      v->oom.scope = ev.scope;
      v->oom.kills = ev.kills;
      v->oom.group_kill = ev.group_kill;
      v->oom.nested_kills = ev.nested;
    }

  if (!in->have_status)
    decide_without_status (in, v, &ev, &b);
  else if (WIFSIGNALED (in->status) && WTERMSIG (in->status) == SIGKILL)
    {
      v->have_exit_code = true;
      v->exit_code = 128 + SIGKILL;
      v->signal = SIGKILL;
      decide_sigkill (in, v, &ev, &b);
    }
  else if (WIFSIGNALED (in->status))
    {
      /* The OOM killer sends only SIGKILL, so this is not an OOM kill of
       * init; without counters we still say null, as for every reason. */
      int s = WTERMSIG (in->status);
      bool runtime_sent = s <= 64 && (in->signals_sent & VERDICT_SIGBIT (s));
      v->reason = VERDICT_SIGNALED;
      v->have_exit_code = true;
      v->exit_code = 128 + s;
      v->signal = s;
      v->killed_by = runtime_sent ? VERDICT_BY_RUNTIME : VERDICT_BY_NONE;
      if (ev.known)
        v->oom_killed = VERDICT_FALSE;
      else
        set_unknown (v, ev.why);
      signal_name (s, sig, sizeof sig);
      put (&b, "container %s was terminated by signal %s%s", in->container_id, sig,
           runtime_sent ? " sent by the runtime" : "");
      put_counter_note (&b, &ev);
    }
  else if (WIFEXITED (in->status))
    {
      /* Exit codes are the workload's to choose: 137 here is just 137. */
      v->reason = VERDICT_EXITED;
      v->have_exit_code = true;
      v->exit_code = WEXITSTATUS (in->status);
      if (ev.known)
        v->oom_killed = VERDICT_FALSE;
      else
        set_unknown (v, ev.why);
      put (&b, "container %s exited with code %d", in->container_id, v->exit_code);
      put_counter_note (&b, &ev);
    }
  else
    {
      /* Stopped or continued: not a death; say nothing we do not know. */
      v->reason = VERDICT_UNKNOWN;
      set_unknown (v, ev.known ? "init has not exited" : ev.why);
      put (&b, "container %s: init's wait status 0x%x is not an exit", in->container_id,
           (unsigned) in->status);
    }
  put_hint (v, &ev);
}

/* ---- JSON -------------------------------------------------------------- */

static yajl_gen_status
gen_str (yajl_gen g, const char *s)
{
  return yajl_gen_string (g, (const unsigned char *) s, strlen (s));
}

static yajl_gen_status
gen_tri (yajl_gen g, enum verdict_tri t)
{
  return t == VERDICT_NULL ? yajl_gen_null (g) : yajl_gen_bool (g, t == VERDICT_TRUE);
}

int
verdict_gen (yajl_gen g, const struct verdict *v, shim_error_t *err)
{
  yajl_gen_status st = yajl_gen_status_ok;
  char sig[24];

#define STEP(x)                                                                                    \
  do                                                                                               \
    if (st == yajl_gen_status_ok)                                                                  \
      st = (x);                                                                                    \
  while (0)
  STEP (yajl_gen_map_open (g));
  STEP (gen_str (g, "reason"));
  STEP (gen_str (g, verdict_reason_name (v->reason)));
  STEP (gen_str (g, "exit_code"));
  STEP (v->have_exit_code ? yajl_gen_integer (g, v->exit_code) : yajl_gen_null (g));
  STEP (gen_str (g, "signal"));
  if (v->signal > 0)
    {
      signal_name (v->signal, sig, sizeof sig);
      STEP (gen_str (g, sig));
    }
  else
    STEP (yajl_gen_null (g));
  STEP (gen_str (g, "oom_killed"));
  STEP (gen_tri (g, v->oom_killed));
  STEP (gen_str (g, "oom"));
  if (v->have_oom)
    {
      STEP (yajl_gen_map_open (g));
      STEP (gen_str (g, "scope"));
      if (v->oom.scope == VERDICT_SCOPE_NONE)
        STEP (yajl_gen_null (g));
      else
        STEP (gen_str (g, v->oom.scope == VERDICT_SCOPE_CONTAINER ? "container" : "ancestor"));
      STEP (gen_str (g, "kills"));
      STEP (yajl_gen_integer (g, (long long) v->oom.kills));
      STEP (gen_str (g, "group_kill"));
      STEP (gen_tri (g, v->oom.group_kill));
      STEP (gen_str (g, "nested_kills"));
      STEP (yajl_gen_integer (g, (long long) v->oom.nested_kills));
      STEP (yajl_gen_map_close (g));
    }
  else
    STEP (yajl_gen_null (g));
  STEP (gen_str (g, "memory_limit"));
  STEP (v->have_memory_limit ? yajl_gen_integer (g, (long long) v->memory_limit)
                             : yajl_gen_null (g));
  STEP (gen_str (g, "memory_peak"));
  STEP (v->have_memory_peak ? yajl_gen_integer (g, (long long) v->memory_peak) : yajl_gen_null (g));
  STEP (gen_str (g, "memory_limit_enforced"));
  STEP (yajl_gen_bool (g, v->memory_limit_enforced));
  STEP (gen_str (g, "killed_by"));
  if (v->killed_by == VERDICT_BY_NONE)
    STEP (yajl_gen_null (g));
  else
    STEP (gen_str (g, v->killed_by == VERDICT_BY_RUNTIME ? "runtime" : "outside"));
  STEP (gen_str (g, "message"));
  STEP (gen_str (g, v->message));
  STEP (gen_str (g, "hint"));
  STEP (v->hint[0] ? gen_str (g, v->hint) : yajl_gen_null (g));
  STEP (yajl_gen_map_close (g));
#undef STEP
  if (st != yajl_gen_status_ok)
    return shim_error (err, 0, "generate verdict JSON: yajl status %d", (int) st);
  return 0;
}

int
verdict_to_json (const struct verdict *v, char **out, shim_error_t *err)
{
  yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;
  int ret = -1;

  if (g == NULL)
    return shim_error (err, ENOMEM, "generate verdict JSON");
  if (verdict_gen (g, v, err) == 0)
    {
      if (yajl_gen_get_buf (g, &buf, &len) == yajl_gen_status_ok
          && (*out = strndup ((const char *) buf, len)) != NULL)
        ret = 0;
      else
        shim_error (err, ENOMEM, "generate verdict JSON");
    }
  yajl_gen_free (g);
  return ret;
}
