/* SPDX-License-Identifier: Apache-2.0 */
/* The one way evidence becomes a struct verdict_input, for every caller:
 * `shim run`'s monitor, a watcher's record (create/start's delete and state,
 * the hook's poststop and show), a live cgroup read now, and the runtime's
 * log of the signals it sent.  A caller starts with verdict_input_init
 * (the container, and whether its memory limit was enforced: the caller
 * knows that, nothing here guesses it), adds what it has, and computes with
 * verdict_input_compute, which applies the one rule about incomplete
 * evidence:
 *
 *   The counters are final only when they were read after the cgroup
 *   emptied (a complete record) or after init died (the monitor of `run`, a
 *   live read of a stopped container).  Otherwise they are a lower bound:
 *   an OOM kill they show did happen (counters only rise, and a group kill
 *   takes init), but "no kill" is not known, so the verdict is computed
 *   without them and says why (oom_killed null). */
#ifndef SHIM_VERDICT_INPUT_H
#define SHIM_VERDICT_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup_files.h"
#include "verdict/kmsg.h"
#include "verdict/monitor.h"
#include "verdict/verdict.h"
#include "verdict/watcher.h"

/* What a watcher's record was worth. */
enum verdict_record_kind
{
  VERDICT_RECORD_MISSING,
  VERDICT_RECORD_INCOMPLETE,
  VERDICT_RECORD_COMPLETE,
};

struct verdict_sources
{
  struct verdict_input in; /* points into the caller's monitor or record */
  enum verdict_record_kind record;
  /* The counters in `in` were read after the end: nothing can change them. */
  bool final;
  /* Why they are not final, when a record says so. */
  const char *not_final_why;
};

void verdict_input_init (struct verdict_sources *s, const char *id, bool memory_limit_enforced);

/* `shim run`: the monitor's snapshots (its last read after init's exit),
 * init's wait status, and the kernel log's evidence (NULL: none read). */
void verdict_input_monitor (struct verdict_sources *s, const struct monitor *m, int status,
                            const struct kmsg_evidence *kmsg);

/* A watcher's record, or none (R NULL: WHY_MISSING says why, the reason
 * oom_killed is null).  Returns what it was worth. */
enum verdict_record_kind verdict_input_record (struct verdict_sources *s, const struct watcher_record *r,
                                               const char *why_missing);

/* The container's cgroup read now: newer than any record, and final for
 * what happened to init when init has died (delete and state of a stopped
 * container; `events` reads a running one and only counts kills).
 * BASELINE replaces the record's when not NULL. */
void verdict_input_live (struct verdict_sources *s, const struct cg_snapshot *baseline,
                         const struct cg_snapshot *now);

/* The runtime's log of the signals `shim kill` sent (VERDICT_SIGBIT bits);
 * UNKNOWN: the log could not be read, which is not "nothing sent". */
void verdict_input_signals (struct verdict_sources *s, uint64_t sent, bool unknown);
/* An OCI hook: the runtime's signals are not seen at all. */
void verdict_input_signals_unseen (struct verdict_sources *s);

/* verdict_compute with the rule above. */
void verdict_input_compute (struct verdict_sources *s, struct verdict *v);

#endif
