/* SPDX-License-Identifier: Apache-2.0 */
/* The names the kernel log gives a verdict: victims, oom_memcg, max_events
 * (verdict/witness.c). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "verdict_fixture.h"

/* Where the victims lived and whose limit ran out, relative to the
 * container inside it, absolute outside; how often the limit was reached. */
static void
test_names (void)
{
  static const struct
  {
    enum km_kind km;
    const char *oom_memcg;
  } cases[] = {
    { K_OWN, "." },
    { K_ANC, "/shim" },
    { K_HOST, "" },
    { K_NESTED, "leaf" },
  };
  struct cg_snapshot base, fin;
  struct kmsg_evidence km;
  struct verdict v;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct verdict_input in = { .container_id = "c", .memory_limit_enforced = true,
                                  .baseline = &base, .final = &fin, .have_status = true,
                                  .status = SIGKILL, .kmsg = &km, .kmsg_cgroup = "/shim/c1" };
      make_snap (&base, (struct cnt) Z, (struct cnt) Z, S_BOTH);
      make_snap (&fin, (struct cnt) Z, (struct cnt){ cases[i].km == K_NESTED, 1, 0 }, S_BOTH);
      make_kmsg (&km, cases[i].km);
      verdict_compute (&in, &v);
      is_str (v.oom.oom_memcg, cases[i].oom_memcg, "names %zu: oom_memcg", i);
      is_int (v.oom.n_victims, 1, "names %zu: one victim", i);
      is_str (v.oom.victims[0].cgroup, "leaf", "the victim's cgroup, relative");
      is_str (v.oom.victims[0].comm, "python3", "the victim's command");
      is_int (v.oom.victims[0].anon_rss, 498 * MIB, "the victim's anonymous rss, in bytes");
    }
  {
    struct verdict_input in = { .container_id = "c", .memory_limit_enforced = true,
                                .baseline = &base, .final = &fin, .have_status = true,
                                .status = SIGKILL };
    make_snap (&base, (struct cnt) Z, (struct cnt) Z, S_BOTH);
    make_snap (&fin, (struct cnt){ 1, 1, 1 }, (struct cnt){ 1, 1, 1 }, S_BOTH);
    base.events_local.max = 3;
    fin.events_local.max = 15;
    verdict_compute (&in, &v);
    ok (v.oom.have_max_events && v.oom.max_events == 12, "max_events: the delta of local max");
    ok (!v.oom.have_victims, "victims: null without the kernel log");
  }
  {
    /* A summary without its victim record is no kill; a member of a group
     * kill has no task_memcg; a command is escaped as the kernel log does. */
    struct verdict_input in = { .container_id = "c", .memory_limit_enforced = true,
                                .baseline = &base, .final = &fin, .have_status = true,
                                .status = SIGKILL, .kmsg = &km, .kmsg_cgroup = "/shim/c1" };
    make_snap (&base, (struct cnt) Z, (struct cnt) Z, S_BOTH);
    make_snap (&fin, (struct cnt) Z, (struct cnt) Z, S_BOTH);
    make_kmsg (&km, K_OWN);
    km.kills[0].have_victim = false;
    verdict_compute (&in, &v);
    is_int (v.oom_killed, VERDICT_FALSE, "a summary without its victim record is no kill");
    is_int (v.killed_by, VERDICT_BY_OUTSIDE, "... and the counters agree: from outside");

    make_snap (&fin, (struct cnt){ 1, 0, 1 }, (struct cnt){ 1, 2, 1 }, S_BOTH);
    make_kmsg (&km, K_OWN);
    km.n = 2;
    make_kill (&km.kills[1], "/shim/c1");
    km.kills[1].task_memcg[0] = '\0';
    km.kills[1].pid = 4122;
    snprintf (km.kills[1].comm, sizeof km.kills[1].comm, "%s", "a\nb");
    verdict_compute (&in, &v);
    is_int (v.oom_killed, VERDICT_TRUE, "a group kill: OOMKilled");
    is_int (v.oom.n_victims, 2, "the group member is a victim");
    is_str (v.oom.victims[1].cgroup, "", "the group member's cgroup is unknown");
    is_str (v.oom.victims[1].comm, "a\\x0ab", "the command escaped");
  }
}

/* init itself as the victim of a nested cgroup's own limit: only the
 * kernel log can say which process went; the counters see a nested kill. */
static void
test_init_nested (void)
{
  struct cg_snapshot base, fin;
  struct kmsg_evidence km;
  struct verdict v;
  struct verdict_input in = { .container_id = "c", .memory_limit_enforced = true,
                              .baseline = &base, .final = &fin, .have_status = true,
                              .status = SIGKILL, .kmsg = &km, .kmsg_cgroup = "/shim/c1",
                              .init_pid = 4121 };

  make_snap (&base, (struct cnt) Z, (struct cnt) Z, S_BOTH);
  make_snap (&fin, (struct cnt) Z, (struct cnt){ 1, 1, 0 }, S_BOTH);
  make_kmsg (&km, K_NESTED);
  verdict_compute (&in, &v);
  is_int (v.reason, VERDICT_OOM_KILLED, "init killed by a nested cgroup's limit: OOMKilled");
  is_int (v.oom_killed, VERDICT_TRUE, "... oom_killed true");
  is_int (v.killed_by, VERDICT_BY_NONE, "... never killed from outside");
  is_int (v.oom.scope, VERDICT_SCOPE_NONE, "... not the container's limit: scope null");
  ok (strstr (v.message, "nested cgroup `leaf`") != NULL, "the message says whose limit: %s", v.message);

  in.init_pid = 4122;
  verdict_compute (&in, &v);
  is_int (v.reason, VERDICT_KILLED, "another process was the nested victim: init was killed");
  is_int (v.killed_by, VERDICT_BY_OUTSIDE, "... from outside, as the counters and the log agree");
  is_int (v.oom_killed, VERDICT_FALSE, "... not an OOM kill");
}

int
main (void)
{
  test_names ();
  test_init_nested ();
  return done_testing ();
}
