/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict in words: the message, the hint and unknown_reason, told from
 * what the rules decided (struct verdict_facts), and the size formatter. */
#include "verdict/verdict_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

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

void
verdict_signal_name (int sig, char *buf, size_t len)
{
  const char *abbr = sig > 0 ? sigabbrev_np (sig) : NULL;

  if (abbr)
    snprintf (buf, len, "SIG%s", abbr);
  else
    snprintf (buf, len, "SIG%d", sig);
}

/* ---- message pieces ---------------------------------------------------- */

static const char *
procs (uint64_t n)
{
  return n == 1 ? "process" : "processes";
}

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
kills_word (uint64_t n)
{
  return n == 1 ? "kill" : "kills";
}

/* Why the kernel log did not help: "the kernel log was not read". */
static const char *
kmsg_state (const struct verdict_kmsg_facts *km)
{
  switch (km->use)
    {
    case VERDICT_KMSG_DENIED:
      return "the kernel log could not be read";
    case VERDICT_KMSG_INCOMPLETE:
      return "the kernel log had lost or unattributed records";
    case VERDICT_KMSG_NO_PATH:
      return "the kernel log could not be matched to its cgroup";
    case VERDICT_KMSG_USED:
      return "the kernel log was read";
    default:
      return "the kernel log was not read";
    }
}

/* What the counters said, for a disagreement: "count no OOM kill in its
 * cgroup". */
static void
counters_said (const struct verdict_evidence *c, char *buf, size_t len)
{
  if (c->by_ancestor)
    snprintf (buf, len, "of its parent cgroup count no OOM kill below it");
  else if (c->cls == VERDICT_CLASS_NONE)
    snprintf (buf, len, "count no OOM kill in its cgroup");
  else if (c->cls == VERDICT_CLASS_BELONGS)
    snprintf (buf, len, "count %llu OOM %s of its own", (unsigned long long) c->kills,
              kills_word (c->kills));
  else
    snprintf (buf, len, "count %llu OOM %s in nested cgroups and no OOM event of its own",
              (unsigned long long) c->t_kill, kills_word (c->t_kill));
}

/* What the kernel log said: "reports 1 OOM kill of `python3` (pid 4121) by its own limit". */
static void
kmsg_said (const struct verdict *v, const struct verdict_kmsg_facts *km, char *buf, size_t len)
{
  if (km->cls == VERDICT_CLASS_NONE)
    snprintf (buf, len, "reports no OOM kill in it");
  else if (km->cls == VERDICT_CLASS_NESTED)
    snprintf (buf, len, "reports %llu OOM %s by nested cgroups' limits",
              (unsigned long long) km->nested, kills_word (km->nested));
  else
    snprintf (buf, len, "reports %llu OOM %s (`%s`, host pid %lld) by %s",
              (unsigned long long) (km->own + km->ancestor), kills_word (km->own + km->ancestor),
              v->oom.victims[km->first_victim].comm, (long long) km->first->pid,
              km->own > 0 ? "its own limit" : "a parent cgroup's or the host's limit");
}

/* Why oom_killed is null, or why the counters are unknown. */
/* How the kernel took the container's processes: "as a group" can skip
 * init (oom_score_adj -1000, or already exiting); "one by one" says why
 * when the container's own memory.oom.group was 0. */
static const char *
kill_mode (const struct verdict_evidence *ev)
{
  if (ev->as_group)
    return "as a group (which skips a task with oom_score_adj -1000)";
  if (ev->group_open)
    return "with no group kill counted yet when its counters were last read";
  if (ev->oom_group_off && ev->scope == VERDICT_SCOPE_CONTAINER)
    return "one by one, not as a group (its memory.oom.group was 0)";
  if (!ev->have_group_key && !ev->v1)
    return "with no group kill counted (this kernel counts none)";
  return "one by one, not as a group";
}

static void
why_text (const struct verdict_input *in, const struct verdict *v, const struct verdict_facts *f,
          enum verdict_why why, char *buf, size_t len)
{
  const struct verdict_evidence *ev = &f->ev;
  char a[160], b[160];

  switch (why)
    {
    case VERDICT_WHY_NONE:
      snprintf (buf, len, "%s", "");
      break;
    case VERDICT_WHY_NO_SNAPSHOT:
      snprintf (buf, len, "no cgroup snapshot was taken");
      break;
    case VERDICT_WHY_EVENTS_UNREADABLE:
      snprintf (buf, len, "memory.events was not readable (no memory controller?)");
      break;
    case VERDICT_WHY_COUNTERS_DOWN:
      snprintf (buf, len, "the OOM counters went down since create (the cgroup was recreated?)");
      break;
    case VERDICT_WHY_NO_COUNTER:
      snprintf (buf, len, "memory.events has no oom or oom_kill counter");
      break;
    case VERDICT_WHY_NO_LOCAL:
      snprintf (buf, len,
                "the kernel has no memory.events.local (before 5.2) to tell whose OOM kills the "
                "tree counted");
      break;
    case VERDICT_WHY_NO_BASELINE:
      snprintf (buf, len,
                "no baseline was taken at create and the cgroup's OOM counters are not zero");
      break;
    case VERDICT_WHY_UNAVAILABLE:
      snprintf (buf, len, "%s", in->unavailable_reason);
      break;
    case VERDICT_WHY_NOT_ENFORCED:
      snprintf (buf, len, "memory limit not enforced");
      break;
    case VERDICT_WHY_ONE_BY_ONE_TOO:
      snprintf (buf, len, "processes were OOM-killed %s as well, and only the kernel log names the "
                "victims", kill_mode (ev));
      break;
    case VERDICT_WHY_ONE_BY_ONE_NO_STATUS:
      snprintf (buf, len, "processes were OOM-killed %s, and init's exit status was not known",
                kill_mode (ev));
      break;
    case VERDICT_WHY_RUNTIME_OR_OOM:
      snprintf (buf, len, "the runtime sent SIGKILL and the OOM killer killed processes %s, and %s",
                kill_mode (ev), kmsg_state (&f->km));
      break;
    case VERDICT_WHY_AMBIGUOUS:
      snprintf (buf, len,
                "its own memory limit ran out while nested cgroups ran out of theirs, and the "
                "%llu OOM %s counted cannot be told apart",
                (unsigned long long) ev->t_kill, ev->t_kill == 1 ? "kill" : "kills");
      break;
    case VERDICT_WHY_NOT_EXITED:
      snprintf (buf, len, "init has not exited");
      break;
    case VERDICT_WHY_RECREATED:
      snprintf (buf, len, "the cgroup was removed and made again under the same path since create "
                          "(its id changed), so its OOM counters do not count from the baseline");
      break;
    case VERDICT_WHY_LOCALEVENTS:
    case VERDICT_WHY_V1_NESTED:
      snprintf (buf, len, "%s, and %s",
                why == VERDICT_WHY_LOCALEVENTS
                    ? "the cgroup2 mount has memory_localevents, so its counters do not show OOM "
                      "kills in nested cgroups"
                    : "the container's cgroup v1 memory cgroup has nested cgroups, whose OOM kills "
                      "its counters do not show",
                kmsg_state (&f->km));
      break;
    case VERDICT_WHY_DISAGREE:
      counters_said (&f->counters, a, sizeof a);
      kmsg_said (v, &f->km, b, sizeof b);
      snprintf (buf, len, "the cgroup's counters %s, but the kernel log %s", a, b);
      break;
    case VERDICT_WHY_NESTED_VICTIMS:
      snprintf (buf, len,
                "its own memory limit ran out and %llu %s in nested cgroups %s OOM-killed one by "
                "one, not as a group",
                (unsigned long long) ev->t_kill, procs (ev->t_kill), ev->t_kill == 1 ? "was" : "were");
      break;
    case VERDICT_WHY_NESTED_OR_ANCESTOR:
      snprintf (buf, len,
                "the %llu OOM %s counted below it may have been a nested cgroup's or a parent's "
                "(the counters cannot tell them apart) and %s",
                (unsigned long long) ev->t_kill, kills_word (ev->t_kill), kmsg_state (&f->km));
      break;
    case VERDICT_WHY_NESTED_INIT:
      snprintf (buf, len,
                "%llu %s in nested cgroups %s OOM-killed and init may have been one of them (it can "
                "live in a nested cgroup), but %s",
                (unsigned long long) ev->nested, procs (ev->nested), ev->nested == 1 ? "was" : "were",
                f->km.use == VERDICT_KMSG_USED ? "init's pid was not known" : kmsg_state (&f->km));
      break;
    case VERDICT_WHY_INIT_NOT_NAMED:
      snprintf (buf, len,
                "%llu %s in it %s OOM-killed %s, and init may have been one of them or killed "
                "after them; only the kernel log names the victims, and %s",
                (unsigned long long) ev->kills, procs (ev->kills), ev->kills == 1 ? "was" : "were",
                kill_mode (ev),
                f->km.use == VERDICT_KMSG_USED ? "init's pid was not known" : kmsg_state (&f->km));
      break;
    case VERDICT_WHY_SIGNALS_UNKNOWN:
      snprintf (buf, len, "processes were OOM-killed %s, and the record of the runtime's signals is "
                "unreadable", kill_mode (ev));
      break;
    }
}

/* What filled memory, from memory.stat at the OOM: the largest of anonymous
 * memory, shmem (tmpfs, shm: it stays charged after the processes die and
 * counts inside `file`), the rest of the page cache, and kernel memory.
 * Said as the container's, since the victim's own rss follows in the same
 * sentence and the two differ (memory.stat may be read after the victim's
 * memory was freed). */
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
      put (b, "; the container held mostly tmpfs / shared memory: %s shmem", sz);
    }
  else if (anon >= cache && anon >= kernel)
    {
      verdict_format_size (anon, sz, sizeof sz);
      put (b, "; the container held %s anonymous memory", sz);
    }
  else if (kernel >= cache)
    {
      verdict_format_size (kernel, sz, sizeof sz);
      put (b, "; the container held %s%s kernel memory", st->have & CG_STAT_KERNEL_ESTIMATED ? "at least " : "",
           sz);
    }
  else
    {
      verdict_format_size (cache, sz, sizeof sz);
      put (b, "; the container held %s page cache", sz);
    }
}

/* "(peak 64 MiB, 3 processes killed as a group; 58 MiB anonymous memory)" */
static void
put_oom_details (struct sbuf *b, const struct verdict *v, const struct verdict_evidence *ev,
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
           ev->as_group ? " as a group" : "");
      sep = ", ";
    }
  else if (ev->as_group)
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

/* What follows "its exit status was not known": " here", or ": why"
 * where the evidence layer said why. */
static const char *
status_unknown (const struct verdict_input *in, char *buf, size_t len)
{
  if (!in->status_unknown_reason)
    return " here";
  snprintf (buf, len, ": %s", in->status_unknown_reason);
  return buf;
}

/* "container x was OOM-killed: it hit its 64 MiB memory limit (...)" */
static void
put_oom_killed (struct sbuf *b, const struct verdict_input *in, const struct verdict *v,
                const struct verdict_evidence *ev)
{
  char sz[32] = "";

  if (v->have_memory_limit)
    verdict_format_size (v->memory_limit, sz, sizeof sz);
  char unknown[256];

  if (in->have_status)
    put (b, "container %s was OOM-killed: ", in->container_id);
  else
    put (b, "container %s was OOM-killed (its exit status was not known%s): ", in->container_id,
         status_unknown (in, unknown, sizeof unknown));
  if (ev->scope == VERDICT_SCOPE_CONTAINER)
    put (b, "it hit its %s%smemory limit", sz, sz[0] ? " " : "");
  else if (ev->scope == VERDICT_SCOPE_NONE)
    /* cgroup v1 without the kernel log: its counters do not say whose
     * limit ran out (verdict.h). */
    put (b, "the kernel killed a process in it; whether its own%s%s limit or a parent cgroup's "
            "ran out is unknown (cgroup v1 counts no OOM events)",
         sz[0] ? " " : "", sz);
  else if (v->oom.oom_memcg[0] == '/')
    /* The kernel log named the cgroup whose limit ran out, above the
     * container (witness.c keeps a path outside it absolute): a pod's, a
     * slice's. */
    put (b, "it hit the memory limit of its parent cgroup %s, not its own%s%s limit", v->oom.oom_memcg,
         sz[0] ? " " : "", sz);
  else
    put (b, "a parent cgroup's or the host's memory ran out, not its own%s%s limit",
         sz[0] ? " " : "", sz);
  put_oom_details (b, v, ev, in->at_oom);
}

/* "; the kernel killed `python3` (host pid 4121, holding 498 MiB anonymous
 * memory of its own) and 2 more": the pid is the kernel log's, in the
 * initial pid namespace, not the one the container saw. */
static void
put_victim (struct sbuf *b, const struct verdict *v, const struct verdict_kmsg_facts *km)
{
  const struct kmsg_oom_kill *x = km->first;
  uint64_t n = km->own + km->ancestor;
  char sz[32];

  if (km->use != VERDICT_KMSG_USED || x == NULL)
    return;
  put (b, "; the kernel killed `%s` (host pid %lld", v->oom.victims[km->first_victim].comm,
       (long long) x->pid);
  if (x->have_victim)
    {
      verdict_format_size (x->anon_rss_kb * 1024, sz, sizeof sz);
      put (b, ", holding %s anonymous memory", sz);
      if (x->shmem_rss_kb > 0)
        {
          verdict_format_size (x->shmem_rss_kb * 1024, sz, sizeof sz);
          put (b, " and %s shmem", sz);
        }
      put (b, " of its own");
    }
  put (b, ")");
  if (n > 1)
    put (b, " and %llu more", (unsigned long long) (n - 1));
}

/* What else the counters say, after "exited with code 3" and the like. */
static void
put_counter_note (struct sbuf *b, const struct verdict_evidence *ev, const char *why)
{
  if (!ev->known)
    put (b, "; whether anything in it was OOM-killed is unknown: %s", why);
  else if (ev->cls == VERDICT_CLASS_BELONGS)
    put (b, "; %s in the container %s OOM-killed%s (kills %llu) while init survived",
         ev->kills == 1 ? "a process" : "processes", ev->kills == 1 ? "was" : "were",
         ev->scope == VERDICT_SCOPE_ANCESTOR ? " when a parent cgroup's or the host's memory ran out"
                                             : "",
         (unsigned long long) ev->kills);
  else if (ev->cls == VERDICT_CLASS_NESTED && ev->ambiguous_nested)
    put (b, "; %llu %s below it %s OOM-killed, for a nested cgroup's limit or a parent's (the "
            "counters cannot tell which)",
         (unsigned long long) ev->nested, procs (ev->nested), ev->nested == 1 ? "was" : "were");
  else if (ev->cls == VERDICT_CLASS_NESTED || ev->cls == VERDICT_CLASS_AMBIGUOUS)
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

/* The log names the victims and init is not one: "the kernel log names the
 * 2 processes the OOM killer took in it, and init (pid 7) is not one of
 * them". */
static void
put_not_victim (struct sbuf *b, const struct verdict_input *in, const struct verdict_facts *f)
{
  uint64_t n = f->km.own + f->km.ancestor + f->km.nested;

  put (b, "the kernel log names the %llu %s the OOM killer took in it, and init (host pid %lld) is not %s",
       (unsigned long long) n, procs (n), (long long) in->init_pid, n == 1 ? "that one" : "one of them");
}

/* "with no OOM kill of its own; the one OOM kill counted was in ..." */
static void
put_no_oom (struct sbuf *b, const struct verdict_input *in, const struct verdict_facts *f, const char *tail)
{
  const struct verdict_evidence *ev = &f->ev;

  if (ev->cls == VERDICT_CLASS_BELONGS)
    {
      put (b, "not OOM-killed: ");
      put_not_victim (b, in, f);
      put (b, "%s", tail);
      return;
    }
  put (b, "with no OOM kill %s%s",
       ev->cls == VERDICT_CLASS_NESTED ? "of its own"
       : ev->by_ancestor               ? "counted in its parent cgroup, which outlived it"
                                       : "counted in its cgroup",
       tail);
  if (ev->cls == VERDICT_CLASS_NESTED)
    {
      put (b, "; ");
      put_nested (b, ev->nested);
    }
}

/* "container c1 was killed by SIGKILL from outside the runtime (not an OOM
 * kill: ", the sender as far as the record of signals says. */
static void
put_killed_not_oom (struct sbuf *b, const char *id, const struct verdict_input *in,
                    const struct verdict_facts *f)
{
  put (b, "container %s was killed by SIGKILL %s (not an OOM kill: ", id,
       f->runtime_sent       ? "sent by the runtime"
       : in->signals_unseen  ? "from the runtime or outside it (a hook does not see the "
                               "runtime's signals)"
       : in->signals_unknown ? "from the runtime or outside it (the record of the runtime's "
                               "signals is unreadable)"
                             : "from outside the runtime");
}

/* "--memory 128M": double the limit, whole GiB when that is exact, else MiB
 * rounded up. */
static void
put_hint (struct verdict *v, const struct verdict_evidence *ev)
{
  struct sbuf b = { v->hint, sizeof v->hint, 0 };

  if (!ev->known || ev->cls != VERDICT_CLASS_BELONGS)
    return;
  if (ev->scope == VERDICT_SCOPE_ANCESTOR)
    {
      if (v->oom.oom_memcg[0] == '/')
        put (&b, "raise the memory limit of the parent cgroup %s: the container's own limit was not "
                 "what ran out", v->oom.oom_memcg);
      else
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

/* "; it hit its pids limit of 64 (3 forks refused)", whatever the death:
 * a fork bomb's init often exits with a code of its own. */
static void
put_pids (struct sbuf *b, const struct verdict *v)
{
  char lim[48] = "";

  if (!v->have_pids_max_events || v->pids_max_events == 0)
    return;
  if (v->have_pids_limit)
    snprintf (lim, sizeof lim, " of %llu", (unsigned long long) v->pids_limit);
  put (b, "; it hit its pids limit%s (%llu %s refused)", lim, (unsigned long long) v->pids_max_events,
       v->pids_max_events == 1 ? "fork" : "forks");
}

/* ---- the message ------------------------------------------------------- */

void
verdict_tell (const struct verdict_input *in, const struct verdict_facts *f, struct verdict *v)
{
  const struct verdict_evidence *ev = &f->ev;
  const char *id = in->container_id;
  struct sbuf m = { v->message, sizeof v->message, 0 };
  struct sbuf *b = &m;
  char why[sizeof v->unknown_reason], sig[24], unknown[256], clause[300];

  why_text (in, v, f, ev->known ? VERDICT_WHY_NONE : ev->why, why, sizeof why);
  why_text (in, v, f, f->unknown, v->unknown_reason, sizeof v->unknown_reason);
  switch (f->story)
    {
    case VERDICT_STORY_OOM_KILLED:
      put_oom_killed (b, in, v, ev);
      put_victim (b, v, &f->km);
      /* Only when it found something to kill: init alone OOM-killed left
       * nothing, and the emulation then did nothing. */
      if (ev->emulated_group && in->oom_group_left > 0)
        put (b, "; the runtime then killed the %u %s left in it, emulating memory.oom.group on cgroup v1",
             in->oom_group_left, procs (in->oom_group_left));
      if (f->runtime_sent)
        put (b, "; the runtime had also sent SIGKILL");
      break;
    case VERDICT_STORY_KILLED_UNKNOWN:
      put (b, "container %s was killed by SIGKILL%s; whether by the OOM killer is unknown: %s", id,
           f->runtime_sent ? " sent by the runtime" : "", v->unknown_reason);
      break;
    case VERDICT_STORY_INIT_NESTED_OOM:
      put (b,
           "container %s was OOM-killed: its init (host pid %lld) lived in the nested cgroup `%s`, "
           "whose own memory limit ran out (not the container's)",
           id, (long long) in->init_pid, v->oom.oom_memcg[0] ? v->oom.oom_memcg : "?");
      {
        struct sbuf h = { v->hint, sizeof v->hint, 0 };
        /* v1 names the limit memory.limit_in_bytes. */
        put (&h, "raise %s of the nested cgroup `%s`, or keep init in the container's own cgroup",
             ev->v1 ? "memory.limit_in_bytes" : "memory.max", v->oom.oom_memcg[0] ? v->oom.oom_memcg : "?");
      }
      break;
    case VERDICT_STORY_KILLED_EITHER:
      put (b,
           "container %s was killed by SIGKILL; whether by the runtime or the OOM killer is "
           "unknown: the runtime sent SIGKILL and %llu %s in it %s OOM-killed %s",
           id, (unsigned long long) ev->kills, procs (ev->kills), ev->kills == 1 ? "was" : "were",
           kill_mode (ev));
      break;
    case VERDICT_STORY_KILLED_NOT_VICTIM:
      put_killed_not_oom (b, id, in, f);
      put_not_victim (b, in, f);
      put (b, ")");
      break;
    case VERDICT_STORY_KILLED_NOT_OOM:
      put_killed_not_oom (b, id, in, f);
      if (ev->cls == VERDICT_CLASS_NESTED)
        put_nested (b, ev->nested);
      else if (ev->by_ancestor)
        put (b, "no OOM kill was counted in its parent cgroup, which outlived it");
      else
        put (b, "no OOM kill was counted in its cgroup");
      put (b, ")");
      break;
    case VERDICT_STORY_RUNTIME_UNKNOWN:
      put (b, "container %s was stopped by the runtime's SIGKILL; whether it was also OOM-killed is "
              "unknown: %s", id, v->unknown_reason);
      break;
    case VERDICT_STORY_RUNTIME_NO_OOM:
      put (b, "container %s was stopped by the runtime's SIGKILL, ", id);
      put_no_oom (b, in, f, "");
      break;
    case VERDICT_STORY_RUNTIME_EITHER:
      put (b, "container %s was stopped by the runtime's SIGKILL; processes in it were also "
              "OOM-killed %s, so either may have ended init", id,
           kill_mode (ev));
      break;
    case VERDICT_STORY_STOPPED_UNKNOWN:
      put (b, "container %s stopped; its exit status was not known%s and whether it was "
              "OOM-killed is unknown: %s",
           id, status_unknown (in, unknown, sizeof unknown), v->unknown_reason);
      break;
    case VERDICT_STORY_STOPPED_ONE_BY_ONE:
      put (b,
           "container %s stopped; %llu %s in it %s OOM-killed %s, and without init's exit status "
           "it is unknown whether init was one of them",
           id, (unsigned long long) ev->kills, procs (ev->kills), ev->kills == 1 ? "was" : "were",
           kill_mode (ev));
      break;
    case VERDICT_STORY_STOPPED_AMBIGUOUS:
      put (b, "container %s stopped; whether it was OOM-killed is unknown: %s", id,
           v->unknown_reason);
      break;
    case VERDICT_STORY_STOPPED_NO_OOM:
      put (b, "container %s stopped%s", id, ev->cls == VERDICT_CLASS_BELONGS ? ", " : " ");
      snprintf (clause, sizeof clause, " (its exit status was not known%s)",
                status_unknown (in, unknown, sizeof unknown));
      put_no_oom (b, in, f, clause);
      break;
    case VERDICT_STORY_SIGNALED:
      verdict_signal_name (v->signal, sig, sizeof sig);
      put (b, "container %s was terminated by signal %s%s", id, sig,
           f->runtime_sent ? " sent by the runtime" : "");
      put_counter_note (b, ev, why);
      break;
    case VERDICT_STORY_EXITED:
      put (b, "container %s exited with code %d", id, v->exit_code);
      put_counter_note (b, ev, why);
      break;
    case VERDICT_STORY_NOT_EXITED:
      put (b, "container %s: init's wait status 0x%x is not an exit", id, (unsigned) in->status);
      break;
    }
  put_pids (b, v);
  put_hint (v, ev);
}
