/* SPDX-License-Identifier: Apache-2.0 */
/* The second witness: what the kernel log (kmsg.h) says about the
 * container's OOM kills, weighed with the counters (verdict.h says how).
 * Pure, like rules.c. */
#include "verdict/verdict_internal.h"

#include <stdio.h>
#include <string.h>

/* PATH as a verdict shows it: "." the container itself, "a/b" below it,
 * the kernel's absolute path outside it; escaped. */
static void
relative (const char *path, const char *cg, char *buf, size_t len)
{
  size_t n = strlen (cg);

  if (path[0] == '\0')
    snprintf (buf, len, "%s", "");
  else if (strcmp (path, cg) == 0)
    snprintf (buf, len, "%s", ".");
  else if (kmsg_path_within (path, cg))
    kmsg_escape (path + (strcmp (cg, "/") == 0 ? 1 : n + 1), buf, len);
  else
    kmsg_escape (path, buf, len);
}

static enum verdict_kmsg_use
usable (const struct verdict_input *in)
{
  const struct kmsg_evidence *k = in->kmsg;

  if (k == NULL || k->access == KMSG_NOT_READ)
    return VERDICT_KMSG_NONE;
  if (k->access != KMSG_READ)
    return VERDICT_KMSG_DENIED;
  /* A kill may be missing: the log cannot prove an absence, nor whose the
   * kills were, so the counters decide alone. */
  if (k->lost || k->unattributed > 0 || k->truncated || in->kmsg_partial)
    return VERDICT_KMSG_INCOMPLETE;
  if (in->kmsg_cgroup == NULL || in->kmsg_cgroup[0] != '/')
    return VERDICT_KMSG_NO_PATH;
  return VERDICT_KMSG_USED;
}

/* Sort the kills by whose limit ran out and name the victims. */
static void
read_kills (const struct verdict_input *in, struct verdict *v, struct verdict_kmsg_facts *km)
{
  const struct kmsg_evidence *k = in->kmsg;
  const char *cg = in->kmsg_cgroup;
  const struct kmsg_oom_kill *first_nested = NULL;

  v->oom.have_victims = true;
  for (size_t i = 0; i < k->n && i < KMSG_MAX_KILLS; i++)
    {
      const struct kmsg_oom_kill *x = &k->kills[i];
      bool is_init = in->init_pid > 0 && x->pid == in->init_pid;
      struct verdict_victim *vv;

      /* A summary without its victim record proves no kill (the kernel
       * skips a victim that is already exiting).  A victim without a
       * task_memcg is a member of a memory.oom.group kill, which the reader
       * keeps only when the group is within C. */
      if (!x->have_victim || (x->task_memcg[0] && !kmsg_path_within (x->task_memcg, cg)))
        continue;
      if (x->oom_memcg[0] == '\0' || !kmsg_path_within (x->oom_memcg, cg))
        {
          km->ancestor++;
          km->init_victim |= is_init;
        }
      else if (strcmp (x->oom_memcg, cg) == 0)
        {
          km->own++;
          km->init_victim |= is_init;
        }
      else
        {
          km->nested++;
          /* Which process went is the log's alone to say: init itself,
           * living in a nested cgroup, is no "kill from outside". */
          km->init_nested |= is_init;
        }
      if (km->own + km->ancestor > 0 && km->first == NULL)
        {
          km->first = x;
          km->first_victim = v->oom.n_victims;
        }
      else if (km->nested > 0 && first_nested == NULL)
        first_nested = x;
      vv = &v->oom.victims[v->oom.n_victims++];
      vv->pid = x->pid;
      kmsg_escape (x->comm, vv->comm, sizeof vv->comm);
      vv->have_rss = x->have_victim;
      vv->anon_rss = x->anon_rss_kb * 1024;
      vv->file_rss = x->file_rss_kb * 1024;
      vv->shmem_rss = x->shmem_rss_kb * 1024;
      relative (x->task_memcg, cg, vv->cgroup, sizeof vv->cgroup);
    }
  if (km->first || first_nested)
    {
      const struct kmsg_oom_kill *x = km->first ?: first_nested;
      relative (x->oom_memcg, cg, v->oom.oom_memcg, sizeof v->oom.oom_memcg);
    }
  if (km->own + km->ancestor > 0)
    {
      km->cls = VERDICT_CLASS_BELONGS;
      km->scope = km->own > 0 ? VERDICT_SCOPE_CONTAINER : VERDICT_SCOPE_ANCESTOR;
    }
  else
    km->cls = km->nested > 0 ? VERDICT_CLASS_NESTED : VERDICT_CLASS_NONE;
}

/* The kernel log decides alone (the counters are unknown) or settles what
 * the counters left open: the evidence becomes its account. */
static void
take_kmsg (struct verdict_evidence *ev, const struct verdict_kmsg_facts *km)
{
  /* Nested kills confirmed as nested: the counters' numbers stand. */
  bool keep_counts = ev->known && ev->cls == VERDICT_CLASS_NESTED && km->cls == VERDICT_CLASS_NESTED;
  bool was_known = ev->known;

  ev->known = true;
  ev->why = VERDICT_WHY_NONE;
  ev->cls = km->cls;
  ev->scope = km->cls == VERDICT_CLASS_BELONGS ? km->scope : VERDICT_SCOPE_NONE;
  if (!keep_counts)
    {
      ev->kills = km->own + km->ancestor;
      ev->nested = km->nested;
    }
  ev->ambiguous_nested = false;
  ev->nested_unknown = false;
  /* The log does not say whether a kill took the whole group; C's
   * memory.oom.group=1 does, for C's own limit; an ancestor's kill may
   * have gone one by one. */
  ev->as_group = ev->as_group || (ev->scope == VERDICT_SCOPE_CONTAINER && ev->oom_group);
  if (ev->scope == VERDICT_SCOPE_ANCESTOR)
    ev->group_kill = VERDICT_NULL;
  else if (ev->as_group)
    ev->group_kill = VERDICT_TRUE;
  else
    ev->group_kill = was_known && ev->have_group_key && !ev->group_open ? VERDICT_FALSE : VERDICT_NULL;
  ev->decisive = ev->as_group;
  /* v1 has no group kill: an ancestor's kill went one by one too. */
  if (ev->v1)
    {
      ev->as_group = ev->decisive = false;
      ev->group_kill = VERDICT_NULL;
    }
}

/* With init's pid, the log alone says whether init was among the victims
 * of C's own or an ancestor's limit: a counted group kill does not prove
 * it (the kernel skips tasks with oom_score_adj -1000 and tasks already
 * exiting), and neither does an ancestor's kill. */
static void
init_went (struct verdict_evidence *ev, const struct verdict_kmsg_facts *km)
{
  if (km->init_known)
    ev->decisive = ev->known && ev->cls == VERDICT_CLASS_BELONGS && km->cls == VERDICT_CLASS_BELONGS
                   && km->init_victim;
  else if (ev->known && ev->cls == VERDICT_CLASS_BELONGS && km->cls == VERDICT_CLASS_BELONGS && km->init_victim)
    ev->decisive = true;
}

static void
disagree (struct verdict_evidence *ev)
{
  ev->known = false;
  ev->why = VERDICT_WHY_DISAGREE;
}

void
verdict_witness_weigh (const struct verdict_input *in, struct verdict *v, struct verdict_facts *f)
{
  struct verdict_kmsg_facts *km = &f->km;
  struct verdict_evidence *ev = &f->ev;

  f->counters = *ev;
  km->use = usable (in);
  if (km->use != VERDICT_KMSG_USED)
    return;
  read_kills (in, v, km);
  /* The kernel counts and logs each OOM kill in one place
   * (__oom_kill_process), a group's first victim twice: counters with
   * more kills than the log has records mean records were missed, and the
   * log cannot clear init. */
  km->init_known = in->init_pid > 0
                   && !(f->counters.known
                        && f->counters.t_kill > km->own + km->ancestor + km->nested + in->kmsg->relisted);
  v->witnesses |= VERDICT_WITNESS_KMSG;
  if (!ev->known)
    {
      /* Counters lost or blind (memory_localevents): the log decides; under
       * memory_localevents C's own counters were read too. */
      take_kmsg (ev, km);
      init_went (ev, km);
      if (ev->localevents || f->counters.why == VERDICT_WHY_LOCALEVENTS)
        v->witnesses |= VERDICT_WITNESS_COUNTERS;
      return;
    }
  switch (ev->cls)
    {
    case VERDICT_CLASS_BELONGS:
      if (km->cls != VERDICT_CLASS_BELONGS)
        disagree (ev);
      else if (ev->v1)
        {
          /* failcnt says at most that C's limit was hit; the log says whose
           * ran out, and what went in nested cgroups, which v1's counters
           * of C do not count. */
          ev->scope = km->scope;
          ev->nested = km->nested;
          ev->nested_unknown = false;
        }
      break;
    case VERDICT_CLASS_NONE:
      /* Also the surviving ancestor's "nothing below it". */
      if (km->cls != VERDICT_CLASS_NONE)
        disagree (ev);
      break;
    case VERDICT_CLASS_NESTED:
      /* The counters saw no OOM event of C's own: a kill by C's limit
       * contradicts them; an ancestor's or a nested one settles them. */
      if (km->cls == VERDICT_CLASS_NONE || km->own > 0)
        disagree (ev);
      else
        take_kmsg (ev, km);
      break;
    case VERDICT_CLASS_AMBIGUOUS:
      if (km->cls == VERDICT_CLASS_NONE)
        disagree (ev);
      else
        take_kmsg (ev, km);
      break;
    }
  init_went (ev, km);
}
