/* SPDX-License-Identifier: Apache-2.0 */
/* The one way evidence becomes a struct verdict_input, for every caller:
 * `shim run`'s monitor, a watcher's record (create/start's delete and state,
 * the hook's poststop and show), a live cgroup read now, and the runtime's
 * log of the signals it sent.  A caller starts with evidence_input_init
 * (the container, and whether its memory limit was enforced: the caller
 * knows that, nothing here guesses it), adds what it has, and computes with
 * evidence_input_compute, which applies the one rule about incomplete
 * evidence:
 *
 *   The counters are final only when they were read after the cgroup
 *   emptied (a complete record) or after init died (the monitor of `run`, a
 *   live read of a stopped container).  Otherwise they are a lower bound:
 *   an OOM kill they show did happen (counters only rise), but "no kill"
 *   is not known, so a verdict that is not an OOM kill is computed again
 *   without them and says why (oom_killed null), unless they saw a kill:
 *   then the first answer stands, with the kill in it. */
#ifndef SHIM_VERDICT_INPUT_H
#define SHIM_VERDICT_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup_files.h"
#include "verdict/kmsg.h"
#include "evidence/monitor.h"
#include "verdict/verdict.h"
#include "evidence/watcher.h"

/* What the evidence was worth: a watcher's record, or `run`'s monitor
 * (INCOMPLETE when its last read failed). */
enum evidence_record_kind
{
  EVIDENCE_RECORD_MISSING,
  EVIDENCE_RECORD_INCOMPLETE,
  EVIDENCE_RECORD_COMPLETE,
};

struct evidence_sources
{
  struct verdict_input in; /* points into the caller's monitor or record */
  enum evidence_record_kind record;
  /* The counters in `in` were read after the end: nothing can change them. */
  bool final;
  /* Why they are not final, when a record says so. */
  const char *not_final_why;
};

void evidence_input_init (struct evidence_sources *s, const char *id, bool memory_limit_enforced);

/* `shim run`: the monitor's snapshots, init's wait status, and the kernel
 * log's evidence (NULL: none read).  READ_AFTER_EXIT: the monitor's last
 * read came after init's exit (false: it failed, the counters are an
 * earlier read's and only a lower bound). */
void evidence_input_monitor (struct evidence_sources *s, const struct monitor *m, int status,
                             const struct kmsg_evidence *kmsg, bool read_after_exit);

/* A watcher's record, or none (R NULL: WHY_MISSING says why, the reason
 * oom_killed is null).  Returns what it was worth. */
enum evidence_record_kind evidence_input_record (struct evidence_sources *s,
                                                 const struct watcher_record *r,
                                                 const char *why_missing);

/* The container's cgroup read now: newer than any record, and final for
 * what happened to init when init has died (delete and state of a stopped
 * container; `events` reads a running one and only counts kills).
 * BASELINE replaces the record's when not NULL. */
void evidence_input_live (struct evidence_sources *s, const struct cg_snapshot *baseline,
                          const struct cg_snapshot *now);

/* init's pid as this process sees it.  The kernel log names victims by
 * their pid in the initial pid namespace: a runtime in another one (inside
 * a container) cannot match them to init, and init stays unknown there. */
void evidence_input_init_pid (struct evidence_sources *s, int64_t pid);

/* The runtime's log of the signals `shim kill` sent (VERDICT_SIGBIT bits);
 * UNKNOWN: the log could not be read, which is not "nothing sent". */
void evidence_input_signals (struct evidence_sources *s, uint64_t sent, bool unknown);
/* An OCI hook: the runtime's signals are not seen at all. */
void evidence_input_signals_unseen (struct evidence_sources *s);

/* verdict_compute with the rule above. */
void evidence_input_compute (struct evidence_sources *s, struct verdict *v);
/* Whether evidence_input_compute's verdict would say oom_killed true,
 * from the rules alone (verdict_oom_killed). */
bool evidence_input_oom_killed (const struct evidence_sources *s);

#endif
