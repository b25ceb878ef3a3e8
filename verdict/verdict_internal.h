/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the files of verdict/ only.  verdict_compute is two steps: the rules
 * (rules.c) read the evidence and decide every field of the verdict but its
 * text, and hand what they found to the text (text.c) in struct
 * verdict_facts, so that the message, the hint and unknown_reason tell the
 * decision without deciding anything again. */
#ifndef SHIM_VERDICT_INTERNAL_H
#define SHIM_VERDICT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict/verdict.h"

/* What the counters say. */
enum verdict_class
{
  VERDICT_CLASS_NONE,      /* nothing was OOM-killed in C's tree */
  VERDICT_CLASS_BELONGS,   /* the kill belongs to the container (scope says whose limit) */
  VERDICT_CLASS_AMBIGUOUS, /* C's limit and nested limits both ran out; kills only in the tree */
  VERDICT_CLASS_NESTED,    /* kills only in nested cgroups, by their own limits */
};

/* Why oom_killed is null (unknown_reason), or why the counters are unknown. */
enum verdict_why
{
  VERDICT_WHY_NONE,
  /* The counters are unknown. */
  VERDICT_WHY_NO_SNAPSHOT,
  VERDICT_WHY_EVENTS_UNREADABLE,
  VERDICT_WHY_COUNTERS_DOWN,
  VERDICT_WHY_NO_COUNTER,
  VERDICT_WHY_NO_LOCAL,
  VERDICT_WHY_NO_BASELINE,
  VERDICT_WHY_UNAVAILABLE, /* the input's unavailable_reason */
  VERDICT_WHY_NOT_ENFORCED,
  /* The counters are known but do not settle it. */
  VERDICT_WHY_ONE_BY_ONE_TOO,       /* no status, the runtime's SIGKILL and one-by-one kills */
  VERDICT_WHY_ONE_BY_ONE_NO_STATUS, /* no status, one-by-one kills */
  VERDICT_WHY_RUNTIME_OR_OOM,       /* SIGKILL from the runtime and one-by-one kills */
  VERDICT_WHY_AMBIGUOUS,            /* kills of C's limit and of nested ones mixed */
  VERDICT_WHY_NOT_EXITED,           /* a wait status that is no exit */
};

/* The counters as deltas final - baseline, and what they say. */
struct verdict_evidence
{
  bool known;
  enum verdict_why why; /* when !known */
  uint64_t l_oom, l_kill, l_group, t_oom, t_kill;
  bool have_group_key;
  enum verdict_class cls;
  enum verdict_scope scope;
  bool decisive; /* a group kill: init went with it */
  uint64_t kills, nested;
  enum verdict_tri group_kill;
};

/* Which sentence tells the decision (text.c has each one). */
enum verdict_story
{
  VERDICT_STORY_OOM_KILLED,          /* the container was OOM-killed */
  VERDICT_STORY_KILLED_UNKNOWN,      /* SIGKILL; whether by the OOM killer is unknown */
  VERDICT_STORY_KILLED_EITHER,       /* SIGKILL from the runtime or one-by-one OOM kills */
  VERDICT_STORY_KILLED_NOT_OOM,      /* SIGKILL, not an OOM kill */
  VERDICT_STORY_RUNTIME_UNKNOWN,     /* no status: the runtime's SIGKILL, counters unknown */
  VERDICT_STORY_RUNTIME_NO_OOM,      /* no status: the runtime's SIGKILL, no OOM kill of its own */
  VERDICT_STORY_RUNTIME_EITHER,      /* no status: the runtime's SIGKILL and one-by-one kills */
  VERDICT_STORY_STOPPED_UNKNOWN,     /* no status, counters unknown */
  VERDICT_STORY_STOPPED_ONE_BY_ONE,  /* no status, one-by-one kills */
  VERDICT_STORY_STOPPED_AMBIGUOUS,   /* no status, mixed kills */
  VERDICT_STORY_STOPPED_NO_OOM,      /* no status, no OOM kill of its own */
  VERDICT_STORY_SIGNALED,
  VERDICT_STORY_EXITED,
  VERDICT_STORY_NOT_EXITED,
};

struct verdict_facts
{
  struct verdict_evidence ev;
  enum verdict_story story;
  enum verdict_why unknown; /* why oom_killed is null; VERDICT_WHY_NONE otherwise */
  bool runtime_sent;        /* the runtime sent the signal init died of */
};

/* rules.c: every field of v but message, hint and unknown_reason.
 * in->container_id is not NULL. */
void verdict_decide (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f);

/* text.c: message, hint and unknown_reason, from what verdict_decide found. */
void verdict_tell (const struct verdict_input *in, const struct verdict_facts *f, struct verdict *v);

/* "SIGKILL", or "SIG<n>" for a signal without a name. */
void verdict_signal_name (int sig, char *buf, size_t len);

#endif
