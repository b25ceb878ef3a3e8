/* SPDX-License-Identifier: Apache-2.0 */
/* Evidence in, struct verdict_input out (input.h). */
#include "evidence/input.h"

#include <string.h>

#include "common/util.h"

void
evidence_input_init (struct evidence_sources *s, const char *id, bool memory_limit_enforced)
{
  memset (s, 0, sizeof *s);
  s->in.container_id = id;
  s->in.memory_limit_enforced = memory_limit_enforced;
}

void
evidence_input_init_pid (struct evidence_sources *s, int64_t pid)
{
  s->in.init_pid = util_ns_initial ("pid") == 1 ? pid : 0;
}

void
evidence_input_monitor (struct evidence_sources *s, const struct monitor *m, int status,
                        const struct kmsg_evidence *kmsg, bool read_after_exit)
{
  struct verdict_input *in = &s->in;

  in->baseline = m->have_baseline ? &m->baseline : NULL;
  in->final = m->have_last ? &m->last : NULL;
  in->at_oom = m->have_fullest ? &m->fullest : NULL;
  if (m->cgroup_fd < 0)
    in->unavailable_reason = "the container had no cgroup v2";
  else if (m->have_baseline && !(m->baseline.have & CG_SNAP_EVENTS_LOCAL))
    in->unavailable_reason = "the memory controller is not enabled in the container's cgroup";
  in->have_status = true;
  in->status = status;
  in->oom_group_emulated = m->group_killed;
  in->oom_group_left = m->group_left;
  in->kmsg = kmsg && kmsg->access != KMSG_NOT_READ ? kmsg : NULL;
  in->kmsg_cgroup = in->kmsg && in->kmsg->cgroup[0] ? in->kmsg->cgroup : NULL;
  /* The monitor's last read is after init's exit, unless it failed:
   * systemd removes an emptied scope at once, and the counters are then
   * an earlier read's, from before the kill may have been counted. */
  s->final = read_after_exit;
  if (!read_after_exit)
    {
      s->record = EVIDENCE_RECORD_INCOMPLETE;
      s->not_final_why = "the container's cgroup was removed before its last counters were read";
    }
}

/* The last snapshot was read after the cgroup emptied: nothing can change
 * its counters any more. */
static bool
record_final (const struct watcher_record *r)
{
  const struct cg_snapshot *l = &r->last;

  return r->ended && r->have_last && (l->have & CG_SNAP_CGROUP_EVENTS)
         && (l->cgroup_events.have & CG_CEV_POPULATED) && !l->cgroup_events.populated;
}

enum evidence_record_kind
evidence_input_record (struct evidence_sources *s, const struct watcher_record *r,
                       const char *why_missing)
{
  struct verdict_input *in = &s->in;

  if (r == NULL)
    {
      in->unavailable_reason = why_missing ? why_missing : "the watcher left no record";
      return s->record = EVIDENCE_RECORD_MISSING;
    }
  in->baseline = r->have_baseline ? &r->baseline : NULL;
  in->final = r->have_last ? &r->last : NULL;
  in->at_oom = r->have_fullest ? &r->fullest : NULL;
  in->have_status = r->have_status;
  in->status = r->status;
  if (r->status_reaped_first)
    in->status_unknown_reason = "the engine reaped init before the watcher read it; before Linux "
                                "6.15 a pidfd keeps no exit status, and taskstats needs "
                                "CAP_NET_ADMIN";
  in->oom_group_emulated = r->oom_group_emulated;
  in->oom_group_left = r->oom_group_left;
  in->ancestor_baseline = r->have_ancestor_baseline ? &r->ancestor_baseline : NULL;
  in->ancestor_final = r->have_ancestor_final ? &r->ancestor_final : NULL;
  in->kmsg = r->kmsg.access != KMSG_NOT_READ ? &r->kmsg : NULL;
  in->kmsg_cgroup = in->kmsg && in->kmsg->cgroup[0] ? in->kmsg->cgroup : NULL;
  /* The watcher reads the log once more after the end.  Before it, the
   * counters of a group kill were read 4 to 10 ms before the report's
   * victim record (podman on 6.1 under TCG): the log "disagreed", and
   * with the counters dropped as not final it even said "no OOM kill". */
  in->kmsg_partial = !r->ended;
  if (!r->have_baseline)
    in->unavailable_reason = "the watcher recorded no baseline";
  else if (!(r->baseline.have & CG_SNAP_EVENTS_LOCAL))
    in->unavailable_reason = "the memory controller is not enabled in the container's cgroup";
  s->final = record_final (r);
  if (!s->final)
    s->not_final_why = r->ended ? "the container's cgroup was removed before the watcher "
                                  "could read its last counters"
                                : "the watcher's record stops before the container did (the "
                                  "watcher was stopped or had not caught up)";
  return s->record = s->final ? EVIDENCE_RECORD_COMPLETE : EVIDENCE_RECORD_INCOMPLETE;
}

void
evidence_input_live (struct evidence_sources *s, const struct cg_snapshot *baseline,
                     const struct cg_snapshot *now)
{
  if (baseline)
    s->in.baseline = baseline;
  s->in.final = now;
  if (s->in.at_oom == NULL)
    s->in.at_oom = now;
  s->final = true;
}

void
evidence_input_signals (struct evidence_sources *s, uint64_t sent, bool unknown)
{
  s->in.signals_sent = sent;
  s->in.signals_unknown = unknown;
}

void
evidence_input_signals_unseen (struct evidence_sources *s)
{
  evidence_input_signals (s, 0, true);
  s->in.signals_unseen = true;
}

void
evidence_input_compute (struct evidence_sources *s, struct verdict *v)
{
  struct verdict_input in = s->in;
  struct verdict first;

  /* Counters not read after the cgroup emptied may predate a group
   * kill's count. */
  in.final_open = !s->final && s->record != EVIDENCE_RECORD_MISSING && in.final != NULL;
  verdict_compute (&in, v);
  if (s->final || s->record == EVIDENCE_RECORD_MISSING || v->oom_killed == VERDICT_TRUE)
    return; /* final, nothing to drop, or a kill seen stays a kill */
  first = *v;
  in.final = NULL;
  in.at_oom = NULL;
  in.final_open = false;
  if (in.unavailable_reason == NULL)
    in.unavailable_reason = s->not_final_why;
  verdict_compute (&in, v);
  /* A kill the early counters saw did happen: an answer without them
   * that is no OOM kill must not forget it.  Counters that saw none are
   * no witness against the kernel log (they may predate the kill). */
  if (v->oom_killed != VERDICT_TRUE && first.oom.kills > 0)
    *v = first;
}

bool
evidence_input_oom_killed (const struct evidence_sources *s)
{
  struct verdict_input in = s->in;

  /* evidence_input_compute's rule: either answer that says true is the
   * verdict's. */
  if (verdict_oom_killed (&in) == VERDICT_TRUE)
    return true;
  if (s->final || s->record == EVIDENCE_RECORD_MISSING)
    return false;
  in.final = NULL;
  in.at_oom = NULL;
  if (in.unavailable_reason == NULL)
    in.unavailable_reason = s->not_final_why;
  return verdict_oom_killed (&in) == VERDICT_TRUE;
}
