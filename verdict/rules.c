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

static void
read_counters (const struct verdict_input *in, struct verdict_evidence *ev)
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
      ev->why = in->final || in->at_oom ? VERDICT_WHY_EVENTS_UNREADABLE : VERDICT_WHY_NO_SNAPSHOT;
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
  ev->known = true;
}

static void
classify (struct verdict_evidence *ev)
{
  bool own_limit_only = ev->l_oom > 0 && ev->t_oom == ev->l_oom;

  ev->scope = VERDICT_SCOPE_NONE;
  ev->kills = ev->nested = 0;
  ev->group_kill = VERDICT_NULL;
  ev->decisive = false;
  if (ev->l_group > 0 || ev->l_kill > 0 || (own_limit_only && ev->t_kill > 0)
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
      if (ev->scope == VERDICT_SCOPE_CONTAINER && ev->have_group_key)
        ev->group_kill = ev->l_group > 0 ? VERDICT_TRUE : VERDICT_FALSE;
      ev->decisive = ev->l_group > 0 || ev->scope == VERDICT_SCOPE_ANCESTOR;
    }
  else if (ev->t_kill > 0 && ev->l_oom > 0)
    {
      ev->cls = VERDICT_CLASS_AMBIGUOUS;
      ev->scope = VERDICT_SCOPE_CONTAINER;
      ev->nested = ev->t_kill - ev->l_kill;
      if (ev->have_group_key)
        ev->group_kill = VERDICT_FALSE;
    }
  else if (ev->t_kill > 0)
    {
      ev->cls = VERDICT_CLASS_NESTED;
      ev->nested = ev->t_kill > ev->l_kill ? ev->t_kill - ev->l_kill : 0;
      if (ev->have_group_key)
        ev->group_kill = VERDICT_FALSE;
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
  else if (ev->cls == VERDICT_CLASS_BELONGS && f->runtime_sent && !ev->decisive)
    {
      set_unknown (v, f, VERDICT_WHY_RUNTIME_OR_OOM);
      f->story = VERDICT_STORY_KILLED_EITHER;
    }
  else if (ev->cls == VERDICT_CLASS_BELONGS)
    {
      v->reason = VERDICT_OOM_KILLED;
      v->oom_killed = VERDICT_TRUE;
      v->killed_by = VERDICT_BY_NONE;
      f->story = VERDICT_STORY_OOM_KILLED;
    }
  else if (ev->cls == VERDICT_CLASS_AMBIGUOUS)
    {
      set_unknown (v, f, VERDICT_WHY_AMBIGUOUS);
      f->story = VERDICT_STORY_KILLED_UNKNOWN;
    }
  else
    {
      v->oom_killed = VERDICT_FALSE;
      v->killed_by = f->runtime_sent ? VERDICT_BY_RUNTIME : VERDICT_BY_OUTSIDE;
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
  if (sent_kill && !(ev->known && ev->cls == VERDICT_CLASS_BELONGS && ev->decisive))
    {
      v->reason = VERDICT_KILLED;
      v->killed_by = VERDICT_BY_RUNTIME;
      if (!ev->known)
        {
          set_unknown (v, f, ev->why);
          f->story = VERDICT_STORY_RUNTIME_UNKNOWN;
        }
      else if (ev->cls == VERDICT_CLASS_NONE || ev->cls == VERDICT_CLASS_NESTED)
        {
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
  else if (ev->cls == VERDICT_CLASS_BELONGS)
    {
      set_unknown (v, f, VERDICT_WHY_ONE_BY_ONE_NO_STATUS);
      f->story = VERDICT_STORY_STOPPED_ONE_BY_ONE;
    }
  else if (ev->cls == VERDICT_CLASS_AMBIGUOUS)
    {
      set_unknown (v, f, VERDICT_WHY_AMBIGUOUS);
      f->story = VERDICT_STORY_STOPPED_AMBIGUOUS;
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
verdict_decide (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f)
{
  struct verdict_evidence *ev = &f->ev;

  memset (v, 0, sizeof *v);
  memset (f, 0, sizeof *f);
  v->memory_limit_enforced = in->memory_limit_enforced;
  v->oom_killed = VERDICT_NULL;
  memory_figures (in, v);

  read_counters (in, ev);
  /* The specific cause first; "not enforced" only when nothing says more. */
  if (!ev->known && in->unavailable_reason && in->unavailable_reason[0])
    ev->why = VERDICT_WHY_UNAVAILABLE;
  else if (!ev->known && !in->memory_limit_enforced)
    ev->why = VERDICT_WHY_NOT_ENFORCED;
  if (ev->known)
    {
      classify (ev);
      v->have_oom = ev->cls != VERDICT_CLASS_NONE;
      v->oom.scope = ev->scope;
      v->oom.kills = ev->kills;
      v->oom.group_kill = ev->group_kill;
      v->oom.nested_kills = ev->nested;
    }

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
