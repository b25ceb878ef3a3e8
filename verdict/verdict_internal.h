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
  VERDICT_CLASS_NESTED,    /* kills only in nested cgroups, by their own limits (or, as far as
                            * the counters can tell, an ancestor's while a nested cgroup had an
                            * OOM event: only the kernel log tells these apart) */
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
  VERDICT_WHY_RECREATED,   /* cgroup_id changed between baseline and final */
  VERDICT_WHY_LOCALEVENTS, /* memory_localevents: nested kills cannot be seen */
  VERDICT_WHY_V1_NESTED,   /* cgroup v1 with nested cgroups: their kills cannot be seen */
  VERDICT_WHY_DISAGREE,    /* the counters and the kernel log disagree */
  /* The counters are known but do not settle it. */
  VERDICT_WHY_ONE_BY_ONE_TOO,       /* no status, the runtime's SIGKILL and one-by-one kills */
  VERDICT_WHY_ONE_BY_ONE_NO_STATUS, /* no status, one-by-one kills */
  VERDICT_WHY_RUNTIME_OR_OOM,       /* SIGKILL from the runtime and one-by-one kills */
  VERDICT_WHY_AMBIGUOUS,            /* kills of C's limit and of nested ones mixed */
  VERDICT_WHY_NOT_EXITED,           /* a wait status that is no exit */
  VERDICT_WHY_NESTED_VICTIMS,       /* own limit, one-by-one kills of nested leaves' processes */
  VERDICT_WHY_NESTED_OR_ANCESTOR,   /* tree kills: a nested limit's or an ancestor's */
  VERDICT_WHY_SIGNALS_UNKNOWN,      /* the record of signals is unreadable */
  VERDICT_WHY_NESTED_INIT,          /* nested kills, and no kernel log to say init was not one */
  VERDICT_WHY_INIT_NOT_NAMED,       /* kills of C's, init's SIGKILL, and no kernel log to name the victims */
};

/* What the kernel log says (witness.c): OOM kills of processes in C's tree,
 * by whose limit. */
enum verdict_kmsg_use
{
  VERDICT_KMSG_NONE,       /* no reader (KMSG_NOT_READ) */
  VERDICT_KMSG_DENIED,     /* no access, or another cgroup namespace */
  VERDICT_KMSG_INCOMPLETE, /* lost or unattributed records, or too many kills */
  VERDICT_KMSG_NO_PATH,    /* the container's kernel path is not known */
  VERDICT_KMSG_USED,
};

struct verdict_kmsg_facts
{
  enum verdict_kmsg_use use;
  enum verdict_class cls; /* NONE, BELONGS or NESTED (when used) */
  enum verdict_scope scope;
  uint64_t own, ancestor, nested; /* kills by C's limit, an ancestor's or the host's, a nested one's */
  const struct kmsg_oom_kill *first; /* the first kill of the container's, or NULL */
  size_t first_victim;               /* its entry in verdict.oom.victims */
  bool init_nested; /* init itself was a victim of a nested cgroup's limit */
  bool init_victim; /* init itself was a victim of C's own or an ancestor's limit */
  /* The log was used and init's pid is known: it names every process the
   * OOM killer took in C (each victim and group member gets its own
   * record), so init missing from it was not OOM-killed. */
  bool init_known;
};

/* The counters as deltas final - baseline, and what they say. */
struct verdict_evidence
{
  bool known;
  enum verdict_why why; /* when !known */
  uint64_t l_oom, l_kill, l_group, t_oom, t_kill;
  bool have_group_key;
  bool group_open; /* in->final_open: no group kill counted is no answer */
  enum verdict_class cls;
  enum verdict_scope scope;
  /* init went with the kills: the kernel log names it, or (without the
   * log) C's own group kill was counted, or v1's emulated one. */
  bool decisive;
  uint64_t kills, nested;
  enum verdict_tri group_kill;
  bool oom_group;     /* a snapshot says memory.oom.group=1 */
  bool oom_group_off; /* ... says 0 */
  bool as_group; /* killed as a group: oom_group_kill, or oom.group=1 on a kernel without it */
  bool localevents; /* the tree counters are C's own (memory_localevents) */
  bool v1; /* cgroup v1 counters: C's own oom_kill and failcnt only */
  bool emulated_group; /* v1: the runtime killed the rest (in->oom_group_emulated) */
  bool by_ancestor; /* known from the surviving ancestor's counters, C's were missing */
  bool ambiguous_nested; /* NESTED: an ancestor's kill is not ruled out */
  bool nested_unknown; /* v1: kills in nested cgroups are not counted in C's */
  bool l_max_known;
  uint64_t l_max; /* memory.events.local max: how often C's limit was reached */
};

/* Which sentence tells the decision (text.c has each one). */
enum verdict_story
{
  VERDICT_STORY_OOM_KILLED,          /* the container was OOM-killed */
  VERDICT_STORY_KILLED_UNKNOWN,      /* SIGKILL; whether by the OOM killer is unknown */
  VERDICT_STORY_KILLED_EITHER,       /* SIGKILL from the runtime or one-by-one OOM kills */
  VERDICT_STORY_KILLED_NOT_OOM,      /* SIGKILL, not an OOM kill */
  VERDICT_STORY_KILLED_NOT_VICTIM,   /* SIGKILL; OOM kills in C, but the log clears init */
  VERDICT_STORY_INIT_NESTED_OOM,     /* init OOM-killed in a nested cgroup, by its limit */
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
  struct verdict_kmsg_facts km;
  /* The counters' evidence before the kernel log was weighed (for the
   * message when the two disagree). */
  struct verdict_evidence counters;
};

/* rules.c: every field of v but message, hint and unknown_reason.
 * in->container_id is not NULL. */
void verdict_decide (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f);

/* witness.c: what the kernel log says (f->km), and the evidence weighed with
 * it: agreeing witnesses decide, a kernel log line proving an OOM kill of
 * the container decides when the counters are unknown, disagreeing ones
 * make the counters unknown (VERDICT_WHY_DISAGREE).  Also fills the
 * victims and oom_memcg of V. */
void verdict_witness_weigh (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f);

/* text.c: message, hint and unknown_reason, from what verdict_decide found. */
void verdict_tell (const struct verdict_input *in, const struct verdict_facts *f, struct verdict *v);

/* "SIGKILL", or "SIG<n>" for a signal without a name. */
void verdict_signal_name (int sig, char *buf, size_t len);

#endif
