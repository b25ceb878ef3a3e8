/* SPDX-License-Identifier: Apache-2.0 */
/* From the watcher's record to docs/DESIGN.md's verdict, through the one copy of
 * the rules (verdict_compute, without an exit status: hooks never get one),
 * and the verdict file written at poststop:
 *
 *   { "id": "...", "written_at": "2026-01-31T12:00:00Z", "stage": "poststop",
 *     "exit_status_known": false,
 *     "record": "complete" | "incomplete" | "missing",
 *     "cgroup": "/libpod_parent/libpod-..." | null, "bundle": "..." | null,
 *     "oom_file": true | false,       // <bundle>/oom was created
 *     "verdict": { docs/DESIGN.md's fields } }
 *
 * What the record is worth: "complete" when the watcher's last snapshot was
 * read after the cgroup had emptied, so its counters are final.  Otherwise
 * (the runtime removed the cgroup first, or the watcher was stopped) the
 * counters are only a lower bound: an OOM kill they show did happen (counters
 * only rise, and a group kill takes init), but "no kill" is not known, so
 * the verdict is computed without them and says why: oom_killed null. */
#ifndef SHIM_HOOK_VERDICT_H
#define SHIM_HOOK_VERDICT_H

#include <stdbool.h>

#include "common/error.h"
#include "hooks/hook_store.h"
#include "verdict/verdict.h"
#include "evidence/watcher.h"

enum hook_record_kind
{
  HOOK_RECORD_MISSING,
  HOOK_RECORD_INCOMPLETE,
  HOOK_RECORD_COMPLETE,
};

const char *hook_verdict_record_kind_name (enum hook_record_kind k);

/* r NULL: there is no record, and why_missing says why (it becomes the
 * reason oom_killed is null).  Returns what the record was worth. */
enum hook_record_kind hook_verdict_compute (const char *id, const struct watcher_record *r,
                                           const char *why_missing, int64_t init_pid,
                                           struct verdict *v);

/* The verdict file's text (one JSON line, malloc'd).  meta may be NULL. */
int hook_verdict_document (const char *id, const struct verdict *v, enum hook_record_kind kind,
                           const struct hook_meta *meta, bool oom_file, char **out,
                           shim_error_t *err);

/* What `show` prints, from a verdict file's text: the verdict object as one
 * JSON line, its message and hint (NULL when null).  All malloc'd. */
struct hook_shown
{
  char *verdict_json;
  char *message;
  char *hint;
};
int hook_verdict_parse_document (const char *text, struct hook_shown *out, shim_error_t *err);
void hook_verdict_shown_release (struct hook_shown *s);

#endif
