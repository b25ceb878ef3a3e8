/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict rules (see verdict.h for the rules and the decisions made where
 * docs/DESIGN.md is silent).  Pure: evidence in, decision out; no I/O, no
 * allocation, no text (text.c tells the decision), so every rule is tested
 * from tables of snapshots. */
#include "verdict/verdict_internal.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

/* ---- the evidence ------------------------------------------------------ */

/* final - base for one key.  Returns false when final lacks the key or the
 * counter went down (another cgroup under the same path). */
static bool
delta (const struct cg_memory_events *fin, const struct cg_memory_events *base, unsigned bit,
       uint64_t fv, uint64_t bv, uint64_t *out, struct verdict_evidence *ev)
{
  if (!(fin->have & bit))
    return false;
  if (!(base->have & bit))
    bv = 0;
  if (fv < bv)
    {
      ev->why = VERDICT_WHY_COUNTERS_DOWN;
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

/* The first of SNAPS (NULL-terminated order) that has BIT. */
static const struct cg_snapshot *
with_bit (const struct cg_snapshot *const *snaps, size_t n, unsigned bit)
{
  for (size_t i = 0; i < n; i++)
    if (snaps[i] && (snaps[i]->have & bit))
      return snaps[i];
  return NULL;
}

/* Two snapshots of different cgroups under one path: both carry an id and
 * the ids differ. */
static bool
recreated (const struct cg_snapshot *a, const struct cg_snapshot *b)
{
  return a && b && (a->have & CG_SNAP_ID) && (b->have & CG_SNAP_ID) && a->cgroup_id != b->cgroup_id;
}

/* C's final counters are missing (its cgroup was removed before the last
 * read): an ancestor that outlived it and whose hierarchical oom_kill did
 * not change from arming to the end proves that nothing below it, C
 * included, was OOM-killed.  (A kill anywhere below is counted in every
 * ancestor's memory.events, without memory_localevents.) */
static bool
ancestor_proves_none (const struct verdict_input *in)
{
  const struct cg_snapshot *a = in->ancestor_baseline, *b = in->ancestor_final;

  if (a == NULL || b == NULL || !(a->have & CG_SNAP_EVENTS) || !(b->have & CG_SNAP_EVENTS)
      || !(a->events.have & CG_EV_OOM_KILL) || !(b->events.have & CG_EV_OOM_KILL)
      || recreated (a, b))
    return false;
  /* Under memory_localevents (or where nobody knows) the ancestor counts
   * only its own kills, and proves nothing about C's. */
  if (!(a->have & b->have & CG_SNAP_LOCALEVENTS) || a->localevents || b->localevents)
    return false;
  return b->events.oom_kill == a->events.oom_kill;
}

static const struct cg_snapshot *
v1_counters_of (const struct cg_snapshot *s)
{
  return s && (s->have & CG_SNAP_V1) && (s->have & CG_SNAP_EVENTS_LOCAL)
                 && (s->events_local.have & CG_EV_OOM_KILL)
             ? s
             : NULL;
}

/* Whether the final counters FIN (NULL: missing) can be compared with the
 * baseline BASE (NULL: none); when not, ev says why, or is known from the
 * surviving ancestor. */
static bool
usable_pair (const struct verdict_input *in, const struct cg_snapshot *fin, const struct cg_snapshot *base,
             struct verdict_evidence *ev)
{
  if (fin == NULL)
    {
      if (ancestor_proves_none (in))
        {
          ev->known = ev->by_ancestor = true;
          return false;
        }
      ev->why = in->final || in->at_oom ? VERDICT_WHY_EVENTS_UNREADABLE : VERDICT_WHY_NO_SNAPSHOT;
      return false;
    }
  /* Removed and made again under the same path: its counters started
   * again from 0 and may even have passed the baseline's. */
  if (base && recreated (base, fin))
    {
      ev->why = VERDICT_WHY_RECREATED;
      return false;
    }
  return true;
}

/* The last v1 snapshots saw subdirectories (nested cgroups) in C's. */
static bool
v1_nested_seen (const struct verdict_input *in)
{
  const struct cg_snapshot *s[] = { in->final, in->at_oom };

  for (size_t i = 0; i < 2; i++)
    if (s[i] && (s[i]->have & CG_SNAP_V1) && s[i]->v1_nested)
      return true;
  return false;
}

/* cgroup v1 (verdict.h): C's own oom_kill and failcnt; there is no OOM
 * event count and no tree count. */
static void
read_counters_v1 (const struct verdict_input *in, struct verdict_evidence *ev)
{
  static const struct cg_snapshot zero;
  const struct cg_snapshot *fin = v1_counters_of (in->final) ?: v1_counters_of (in->at_oom);
  const struct cg_snapshot *base = v1_counters_of (in->baseline) ?: &zero;
  const struct cg_memory_events *fl, *bl;

  ev->v1 = true;
  if (!usable_pair (in, fin, base == &zero ? NULL : base, ev))
    return;
  fl = &fin->events_local;
  bl = &base->events_local;
  if (!delta (fl, bl, CG_EV_OOM_KILL, fl->oom_kill, bl->oom_kill, &ev->l_kill, ev))
    {
      ev->why = ev->why == VERDICT_WHY_NONE ? VERDICT_WHY_NO_COUNTER : ev->why;
      return;
    }
  /* failcnt counts failed charges of C's memory counter; measured on 6.18
   * with memory.memsw.limit_in_bytes equal to the limit (as shim sets it
   * without swap): memhog OOM-killed by C's limit, memory.failcnt and
   * memory.memsw.failcnt both stayed 0.  So a rise says C's limit was hit,
   * no rise says nothing: not "the limit was never reached". */
  ev->l_max_known = delta (fl, bl, CG_EV_MAX, fl->max, bl->max, &ev->l_max, ev) && ev->l_max > 0;
  ev->why = VERDICT_WHY_NONE;
  ev->t_kill = ev->l_kill;
  if (base == &zero && ev->l_kill > 0)
    {
      ev->why = VERDICT_WHY_NO_BASELINE;
      return;
    }
  /* No kill of C's own tasks proves nothing about nested cgroups' tasks. */
  ev->known = ev->l_kill > 0 || !v1_nested_seen (in);
  ev->why = ev->known ? VERDICT_WHY_NONE : VERDICT_WHY_V1_NESTED;
}

static bool
v1_snapshots (const struct verdict_input *in)
{
  const struct cg_snapshot *all[] = { in->final, in->at_oom, in->baseline };
  return with_bit (all, 3, CG_SNAP_V1) != NULL;
}

static void
read_counters (const struct verdict_input *in, struct verdict_evidence *ev)
{
  static const struct cg_snapshot zero;
  const struct cg_snapshot *fin = counters_of (in->final) ?: counters_of (in->at_oom);
  /* A baseline without counters is no baseline. */
  const struct cg_snapshot *base = counters_of (in->baseline) ?: &zero;
  const struct cg_snapshot *all[] = { in->final, in->at_oom, in->baseline };
  const struct cg_snapshot *le = with_bit (all, 3, CG_SNAP_LOCALEVENTS);
  struct cg_memory_events nolocal = { 0 };
  const struct cg_memory_events *fl, *bl;
  bool ok;

  ev->known = false;
  if (v1_snapshots (in))
    {
      read_counters_v1 (in, ev);
      return;
    }
  if (!usable_pair (in, fin, base == &zero ? NULL : base, ev))
    return;
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
      if (ev->why == VERDICT_WHY_NONE)
        ev->why = VERDICT_WHY_NO_COUNTER;
      return;
    }
  ev->have_group_key = delta (fl, bl, CG_EV_OOM_GROUP_KILL, fl->oom_group_kill,
                              bl->oom_group_kill, &ev->l_group, ev);
  if (!ev->have_group_key)
    {
      if (ev->why != VERDICT_WHY_NONE)
        return; /* it went down */
      ev->l_group = 0;
    }
  ev->l_max_known = fl != &nolocal && delta (fl, bl, CG_EV_MAX, fl->max, bl->max, &ev->l_max, ev);
  ev->why = VERDICT_WHY_NONE; /* max going down says nothing about kills */
  if (fl == &nolocal && (ev->t_kill > 0 || (fin->events.have & CG_EV_OOM_GROUP_KILL
                                            && fin->events.oom_group_kill
                                                   > base->events.oom_group_kill)))
    {
      ev->why = VERDICT_WHY_NO_LOCAL;
      return;
    }
  /* Counters only rise, so without a baseline zeros are still trustworthy;
   * anything else may predate this container. */
  if (base == &zero && (ev->l_oom || ev->l_kill || ev->l_group || ev->t_oom || ev->t_kill))
    {
      ev->why = VERDICT_WHY_NO_BASELINE;
      return;
    }
  /* memory_localevents: memory.events is C's own, like .local, so a kill in
   * a nested cgroup shows nowhere.  A kill of a process in C itself still
   * does; anything else is unknown (measured: a parent's OOM killing
   * processes in C's nested cgroups read as "no OOM kill", on 6.1 and
   * 6.12). */
  if (le && le->localevents && fl != &nolocal)
    {
      ev->localevents = true;
      ev->t_oom = ev->l_oom;
      ev->t_kill = ev->l_kill;
      if (ev->l_kill == 0 && ev->l_group == 0)
        {
          ev->why = VERDICT_WHY_LOCALEVENTS;
          return;
        }
    }
  ev->known = true;
}

/* memory.oom.group as the latest snapshot has it (the hook sets it to 1;
 * a manager may put it back to 0). */
static enum verdict_tri
oom_group_of (const struct verdict_input *in)
{
  const struct cg_snapshot *all[] = { in->final, in->at_oom, in->baseline };
  const struct cg_snapshot *s = with_bit (all, 3, CG_SNAP_OOM_GROUP);

  return s == NULL ? VERDICT_NULL : s->oom_group ? VERDICT_TRUE : VERDICT_FALSE;
}

static void
classify (struct verdict_evidence *ev)
{
  bool own_limit_only = ev->l_oom > 0 && ev->t_oom == ev->l_oom;

  ev->scope = VERDICT_SCOPE_NONE;
  ev->kills = ev->nested = 0;
  ev->group_kill = VERDICT_NULL;
  ev->decisive = false;
  ev->as_group = false;
  ev->nested_unknown = ev->v1;
  if (ev->v1)
    {
      /* No group kill on v1: every kill is one by one.  Whose limit ran
       * out is unknown unless the kernel log names it (witness.c): failcnt
       * also rises when reclaim at C's limit succeeds (page cache), so a
       * later kill by a parent's limit would read as C's, and it stayed 0
       * for a kill by C's own limit (memsw). */
      ev->cls = ev->l_kill > 0 ? VERDICT_CLASS_BELONGS : VERDICT_CLASS_NONE;
      ev->kills = ev->l_kill;
      return;
    }
  /* C's own limit with victims only in nested leaves: on a kernel that
   * counts group kills, a group kill shows in local oom_group_kill, so
   * without it these were one-by-one kills (or a kill -9 after an OOM event
   * that killed nothing): ambiguous below.  Before 5.17 it is the only sign
   * of the measured "nested leaves, oom.group=1" row. */
  if (ev->l_group > 0 || ev->l_kill > 0 || (own_limit_only && ev->t_kill > 0 && !ev->have_group_key)
      || (ev->t_kill > 0 && ev->t_oom == 0))
    {
      ev->cls = VERDICT_CLASS_BELONGS;
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
      /* Before 5.17 a group kill is not counted; memory.oom.group=1 on C
       * (the hook sets it) makes the kernel kill C's whole group for C's own
       * limit. */
      ev->as_group = ev->l_group > 0
                     || (!ev->have_group_key && ev->oom_group && ev->scope == VERDICT_SCOPE_CONTAINER);
      if (ev->scope == VERDICT_SCOPE_CONTAINER && (ev->have_group_key || ev->as_group))
        ev->group_kill = ev->as_group ? VERDICT_TRUE : ev->group_open ? VERDICT_NULL : VERDICT_FALSE;
      /* An ancestor's kill proves nothing about init: its oom.group may
       * be 0, and the kills one by one. */
      ev->decisive = ev->as_group;
    }
  else if (ev->t_kill > 0 && ev->l_oom > 0)
    {
      ev->cls = VERDICT_CLASS_AMBIGUOUS;
      ev->scope = VERDICT_SCOPE_CONTAINER;
      ev->nested = ev->t_kill - ev->l_kill;
      if (ev->have_group_key)
        ev->group_kill = ev->group_open ? VERDICT_NULL : VERDICT_FALSE;
    }
  else if (ev->t_kill > 0)
    {
      /* Tree kills and OOM events below C only: a nested cgroup's limit, or
       * an ancestor's OOM while a nested cgroup also had an OOM event; the
       * counters cannot tell these apart. */
      ev->cls = VERDICT_CLASS_NESTED;
      ev->ambiguous_nested = true;
      ev->nested = ev->t_kill > ev->l_kill ? ev->t_kill - ev->l_kill : 0;
      if (ev->have_group_key)
        ev->group_kill = ev->group_open ? VERDICT_NULL : VERDICT_FALSE;
    }
  else
    ev->cls = VERDICT_CLASS_NONE;
}

/* ---- the rules --------------------------------------------------------- */

static void
set_unknown (struct verdict *v, struct verdict_facts *f, enum verdict_why why)
{
  v->oom_killed = VERDICT_NULL;
  f->unknown = why;
}

/* Why kills the counters found cannot be attributed. */
static enum verdict_why
unattributed_why (const struct verdict_evidence *ev)
{
  if (ev->cls == VERDICT_CLASS_NESTED)
    return VERDICT_WHY_NESTED_OR_ANCESTOR;
  return ev->t_oom == ev->l_oom ? VERDICT_WHY_NESTED_VICTIMS : VERDICT_WHY_AMBIGUOUS;
}

/* Kills in nested cgroups, and nothing to say init was not among them:
 * init may live in a nested cgroup (systemd as init moves itself into
 * init.scope), and only the kernel log names the victims. */
static bool
nested_init_unknown (const struct verdict_input *in, const struct verdict_facts *f)
{
  return f->ev.cls == VERDICT_CLASS_NESTED && (f->km.use != VERDICT_KMSG_USED || in->init_pid <= 0);
}

/* Kills whose owner the evidence cannot name: C's own limit mixed with
 * nested ones, or nested kills that may have been an ancestor's. */
static bool
unattributed (const struct verdict_evidence *ev)
{
  return ev->cls == VERDICT_CLASS_AMBIGUOUS || (ev->cls == VERDICT_CLASS_NESTED && ev->ambiguous_nested);
}

/* init's own OOM kill is proven, not inferred from a group kill: the log
 * names it, or the runtime's v1 emulation killed it for the OOM kill. */
static bool
init_proven (const struct verdict_facts *f)
{
  return f->ev.decisive && (f->km.init_known || f->ev.emulated_group);
}

static void
decide_sigkill (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f)
{
  const struct verdict_evidence *ev = &f->ev;

  f->runtime_sent = in->signals_sent & VERDICT_SIGBIT (SIGKILL);
  v->reason = VERDICT_KILLED;
  v->killed_by = f->runtime_sent ? VERDICT_BY_RUNTIME : VERDICT_BY_NONE;
  if (!ev->known)
    {
      set_unknown (v, f, ev->why);
      f->story = VERDICT_STORY_KILLED_UNKNOWN;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS && f->km.init_known && !ev->decisive)
    {
      /* The log names the victims and init is not one: its SIGKILL came
       * from the runtime or from outside. */
      v->oom_killed = VERDICT_FALSE;
      v->killed_by = f->runtime_sent        ? VERDICT_BY_RUNTIME
                     : in->signals_unknown ? VERDICT_BY_NONE
                                           : VERDICT_BY_OUTSIDE;
      f->story = VERDICT_STORY_KILLED_NOT_VICTIM;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS && f->runtime_sent && !init_proven (f))
    {
      /* A counted group kill does not prove init went (oom_score_adj
       * -1000): with the runtime's SIGKILL too, only the log could say. */
      set_unknown (v, f, VERDICT_WHY_RUNTIME_OR_OOM);
      f->story = VERDICT_STORY_KILLED_EITHER;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS && in->signals_unknown && !ev->decisive)
    {
      /* The runtime may have sent SIGKILL too: the same doubt as above. */
      set_unknown (v, f, VERDICT_WHY_SIGNALS_UNKNOWN);
      f->story = VERDICT_STORY_KILLED_UNKNOWN;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS && !ev->decisive)
    {
      /* One-by-one kills and init's SIGKILL: init may have been one of
       * them, or killed from outside after them; only the log tells. */
      set_unknown (v, f, VERDICT_WHY_INIT_NOT_NAMED);
      f->story = VERDICT_STORY_KILLED_UNKNOWN;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS)
    {
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      v->killed_by = VERDICT_BY_NONE;
      f->story = VERDICT_STORY_OOM_KILLED;
    }
  else if (unattributed (ev))
    {
      set_unknown (v, f, unattributed_why (ev));
      f->story = VERDICT_STORY_KILLED_UNKNOWN;
    }
  else if (ev->cls == VERDICT_CLASS_NESTED && f->km.init_nested && !f->runtime_sent)
    {
      /* The kernel log names init as the victim of a nested cgroup's own
       * limit (measured: init moved into a nested cgroup with a 16 MiB
       * limit).  The container's process was OOM-killed, if not by the
       * container's limit: oom.scope stays null, the message says whose. */
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      v->killed_by = VERDICT_BY_NONE;
      f->story = VERDICT_STORY_INIT_NESTED_OOM;
    }
  else if (!f->runtime_sent && nested_init_unknown (in, f))
    {
      set_unknown (v, f, VERDICT_WHY_NESTED_INIT);
      f->story = VERDICT_STORY_KILLED_UNKNOWN;
    }
  else
    {
      v->oom_killed = VERDICT_FALSE;
      /* "outside" only when the record proves the runtime sent nothing. */
      v->killed_by = f->runtime_sent        ? VERDICT_BY_RUNTIME
                     : in->signals_unknown ? VERDICT_BY_NONE
                                           : VERDICT_BY_OUTSIDE;
      f->story = VERDICT_STORY_KILLED_NOT_OOM;
    }
}

/* The hook: no wait status.  Only a group kill says init died of it. */
static void
decide_without_status (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f)
{
  const struct verdict_evidence *ev = &f->ev;
  bool sent_kill = (in->signals_sent & VERDICT_SIGBIT (SIGKILL)) != 0;

  v->reason = VERDICT_UNKNOWN;
  /* `shim kill` sent SIGKILL and no group OOM kill took the container:
   * stopped by the runtime (create/start, where nobody has the status). */
  if (sent_kill && !(ev->known && ev->cls == VERDICT_CLASS_BELONGS && init_proven (f)))
    {
      v->reason = VERDICT_KILLED;
      v->killed_by = VERDICT_BY_RUNTIME;
      if (!ev->known || (ev->cls == VERDICT_CLASS_NESTED && ev->ambiguous_nested))
        {
          /* Nested-looking kills may have been an ancestor's group kill,
           * which would have taken init before the runtime's SIGKILL. */
          set_unknown (v, f, ev->known ? unattributed_why (ev) : ev->why);
          f->story = VERDICT_STORY_RUNTIME_UNKNOWN;
        }
      else if (ev->cls == VERDICT_CLASS_NONE || ev->cls == VERDICT_CLASS_NESTED || f->km.init_known)
        {
          /* (The log names the victims and init is not one.) */
          v->oom_killed = VERDICT_FALSE;
          f->story = VERDICT_STORY_RUNTIME_NO_OOM;
        }
      else
        {
          set_unknown (v, f, VERDICT_WHY_ONE_BY_ONE_TOO);
          f->story = VERDICT_STORY_RUNTIME_EITHER;
        }
      return;
    }
  if (!ev->known)
    {
      set_unknown (v, f, ev->why);
      f->story = VERDICT_STORY_STOPPED_UNKNOWN;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS && ev->decisive)
    {
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      f->story = VERDICT_STORY_OOM_KILLED;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS && f->km.init_known)
    {
      /* The log names the victims and init is not one. */
      v->oom_killed = VERDICT_FALSE;
      f->story = VERDICT_STORY_STOPPED_NO_OOM;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS)
    {
      set_unknown (v, f, VERDICT_WHY_ONE_BY_ONE_NO_STATUS);
      f->story = VERDICT_STORY_STOPPED_ONE_BY_ONE;
    }
  else if (unattributed (ev))
    {
      set_unknown (v, f, unattributed_why (ev));
      f->story = VERDICT_STORY_STOPPED_AMBIGUOUS;
    }
  else if (ev->cls == VERDICT_CLASS_NESTED && f->km.init_nested)
    {
      /* The kernel log names init as a nested cgroup's victim: an OOM
       * kill is a SIGKILL, so init died of it. */
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      f->story = VERDICT_STORY_INIT_NESTED_OOM;
    }
  else if (nested_init_unknown (in, f))
    {
      set_unknown (v, f, VERDICT_WHY_NESTED_INIT);
      f->story = VERDICT_STORY_STOPPED_UNKNOWN;
    }
  else
    {
      v->oom_killed = VERDICT_FALSE;
      f->story = VERDICT_STORY_STOPPED_NO_OOM;
    }
}

static void
memory_figures (const struct verdict_input *in, struct verdict *v)
{
  /* The limit in force at the OOM is the one that ran out (`shim update` may
   * change it).  The peak only grows: the final snapshot's, read at the
   * end; an earlier one is only a lower bound, and said only when there is
   * no final snapshot at all.  Measured: a hook under runc whose last read
   * of memory.peak failed (the cgroup removed) said "peak 3.7 MiB" from the
   * fullest snapshot, taken before a parent's limit killed 47.6 MiB. */
  const struct cg_snapshot *lim[] = { in->at_oom, in->final, in->baseline };
  const struct cg_snapshot *peak[] = { in->final, in->final ? NULL : in->at_oom };

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

/* pids.events max counts from the baseline (it may pre-exist); the limit
 * is the latest read's. */
static void
pids_figures (const struct verdict_input *in, struct verdict *v)
{
  const struct cg_snapshot *b = in->baseline, *e = in->final ? in->final : in->at_oom;
  const struct cg_snapshot *lim[] = { e, b };

  if (b && e && (b->have & e->have & CG_SNAP_PIDS_EVENTS) && e->pids_max_events >= b->pids_max_events)
    {
      v->have_pids_max_events = true;
      v->pids_max_events = e->pids_max_events - b->pids_max_events;
    }
  for (size_t i = 0; i < 2; i++)
    if (lim[i] && (lim[i]->have & CG_SNAP_PIDS_MAX))
      {
        v->have_pids_limit = lim[i]->pids_max != CG_UNLIMITED;
        v->pids_limit = v->have_pids_limit ? lim[i]->pids_max : 0;
        break;
      }
}

void
verdict_decide (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f)
{
  struct verdict_evidence *ev = &f->ev;

  memset (v, 0, sizeof *v);
  memset (f, 0, sizeof *f);
  v->memory_limit_enforced = in->memory_limit_enforced;
  v->oom_killed = VERDICT_NULL;
  memory_figures (in, v);
  pids_figures (in, v);

  read_counters (in, ev);
  ev->group_open = in->final_open;
  ev->oom_group = oom_group_of (in) == VERDICT_TRUE;
  ev->oom_group_off = oom_group_of (in) == VERDICT_FALSE;
  /* The specific cause first; "not enforced" only when nothing says more. */
  if (!ev->known && in->unavailable_reason && in->unavailable_reason[0]
      && ev->why != VERDICT_WHY_RECREATED && ev->why != VERDICT_WHY_LOCALEVENTS)
    ev->why = VERDICT_WHY_UNAVAILABLE;
  else if (!ev->known && !in->memory_limit_enforced && ev->why != VERDICT_WHY_RECREATED
           && ev->why != VERDICT_WHY_LOCALEVENTS)
    ev->why = VERDICT_WHY_NOT_ENFORCED;
  if (ev->known)
    classify (ev);
  v->witnesses = !ev->known        ? 0
                 : ev->by_ancestor ? VERDICT_WITNESS_ANCESTOR
                                   : VERDICT_WITNESS_COUNTERS;
  verdict_witness_weigh (in, v, f);
  /* cgroup v1 (verdict.h): after an OOM kill in C the runtime killed the
   * rest, emulating memory.oom.group: init went with the group, as with
   * the kernel's group kill (oom.group_kill keeps meaning the kernel's). */
  if (ev->known && ev->v1 && ev->cls == VERDICT_CLASS_BELONGS && in->oom_group_emulated)
    ev->decisive = ev->emulated_group = true;
  if (ev->known)
    {
      v->have_oom = ev->cls != VERDICT_CLASS_NONE;
      v->oom.scope = ev->scope;
      v->oom.kills = ev->kills;
      v->oom.group_kill = ev->group_kill;
      v->oom.group_kill_by = ev->emulated_group                ? VERDICT_GROUP_BY_RUNTIME
                             : ev->group_kill == VERDICT_TRUE ? VERDICT_GROUP_BY_KERNEL
                                                              : VERDICT_GROUP_BY_NONE;
      v->oom.nested_kills = ev->nested;
      v->oom.nested_kills_unknown = ev->nested_unknown;
    }
  v->oom.have_max_events = ev->l_max_known;
  v->oom.max_events = ev->l_max;

  if (!in->have_status)
    decide_without_status (in, v, f);
  else if (WIFSIGNALED (in->status) && WTERMSIG (in->status) == SIGKILL)
    {
      v->have_exit_code = true;
      v->exit_code = 128 + SIGKILL;
      v->signal = SIGKILL;
      decide_sigkill (in, v, f);
    }
  else if (WIFSIGNALED (in->status))
    {
      /* The OOM killer sends only SIGKILL, so this is not an OOM kill of
       * init; without counters we still say null, as for every reason. */
      int s = WTERMSIG (in->status);
      f->runtime_sent = s <= 64 && (in->signals_sent & VERDICT_SIGBIT (s));
      v->reason = VERDICT_SIGNALED;
      v->have_exit_code = true;
      v->exit_code = 128 + s;
      v->signal = s;
      v->killed_by = f->runtime_sent ? VERDICT_BY_RUNTIME : VERDICT_BY_NONE;
      if (ev->known)
        v->oom_killed = VERDICT_FALSE;
      else
        set_unknown (v, f, ev->why);
      f->story = VERDICT_STORY_SIGNALED;
    }
  else if (WIFEXITED (in->status))
    {
      /* Exit codes are the workload's to choose: 137 here is just 137. */
      v->reason = VERDICT_EXITED;
      v->have_exit_code = true;
      v->exit_code = WEXITSTATUS (in->status);
      /* init exited before the runtime's emulated group kill came (on v1
       * a child's OOM kill wakes a waiting init at once): the group was
       * not killed, init was not in it. */
      if (v->oom.group_kill_by == VERDICT_GROUP_BY_RUNTIME)
        v->oom.group_kill_by = VERDICT_GROUP_BY_NONE;
      if (ev->known)
        v->oom_killed = VERDICT_FALSE;
      else
        set_unknown (v, f, ev->why);
      f->story = VERDICT_STORY_EXITED;
    }
  else
    {
      /* Stopped or continued: not a death; say nothing we do not know. */
      v->reason = VERDICT_UNKNOWN;
      set_unknown (v, f, ev->known ? VERDICT_WHY_NOT_EXITED : ev->why);
      f->story = VERDICT_STORY_NOT_EXITED;
    }
}
