/* SPDX-License-Identifier: Apache-2.0 */
/* run: create and start the container; in the foreground we stay init's
 * parent to the end, so the verdict has its exit status. */
#include "runtime/runtime.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "evidence/mark.h"
#include "runtime/launch_internal.h"
#include "runtime/lifecycle_internal.h"
#include "runtime/supervise.h"
#include "evidence/input.h"
#include "evidence/kmsg_reader.h"
#include "evidence/monitor.h"

/* `shim run` without an id: the bundle directory's real name (`shim run .`
 * is named after the directory, not ".") and a random suffix. */
static char *
generate_id (const char *bundle)
{
  char *real = realpath (bundle, NULL);
  cleanup_free char *copy = real ? real : strdup (bundle);
  unsigned char rnd[4] = { 0 };
  char *base, *id = NULL;
  size_t len;

  if (copy == NULL)
    return NULL;
  len = strlen (copy);
  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  base = basename (copy);
  if (getrandom (rnd, sizeof (rnd), 0) != sizeof (rnd))
    {
      pid_t p = getpid ();
      memcpy (rnd, &p, sizeof (rnd));
    }
  if (asprintf (&id, "%s-%02x%02x%02x%02x", base, rnd[0], rnd[1], rnd[2], rnd[3]) < 0)
    return NULL;
  /* A bundle named with characters ids may not hold falls back to "shim",
   * and so does a hidden one (`list` does not show dot names). */
  if (state_validate_id (id, NULL) < 0 || id[0] == '.')
    {
      free (id);
      if (asprintf (&id, "shim-%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]) < 0)
        return NULL;
    }
  return id;
}

static void
cleanup_monitorp (struct monitor *m)
{
  monitor_release (m);
}

static void
cleanup_kmsgp (struct kmsg_reader *r)
{
  if (kmsg_reader_fd (r) >= 0)
    kmsg_reader_close (r);
}

/* launch.cgroup_ready: the baseline of a cgroup made only with init's pid
 * (the systemd manager's scope), before init runs anything. */
static int
monitor_late (struct launch *l, void *arg, shim_error_t *err)
{
  struct monitor *mon = arg;
  if (mon->memory_fd >= 0 || l->cg.dirfd < 0)
    return 0;
  return monitor_init_cgroup (mon, &l->cg, err);
}

/* The foreground run: init's parent to the end, so the verdict has its
 * exit status. */
static int
run_foreground (const struct runtime_ctx *ctx, const struct runtime_run_opts *ro, const struct launch_opts *o,
                struct launch *l, int *exit_code, shim_error_t *err)
{
  __attribute__ ((cleanup (cleanup_monitorp))) struct monitor mon = { .memory_fd = -1, .events_fd = -1 };
  __attribute__ ((cleanup (cleanup_kmsgp))) struct kmsg_reader kmsg = { .fd = -1 };
  struct kmsg_evidence kev = { 0 };
  struct evidence_sources src;
  struct verdict v;
  cleanup_close int sigfd = -1;
  shim_error_t tmp = NULL;
  int status = 0, ret;

  /* The baseline and the kernel log's position before init exists: what
   * either shows from now on is this container's. */
  ret = monitor_init_cgroup (&mon, &l->cg, err);
  /* cgroup v1: the monitor emulates memory.oom.group, as the watcher. */
  if (ret == 0)
    ret = monitor_emulate_oom_group (&mon, &l->cg, &l->cfg->resources, err);
  if (ret == 0 && l->cg.path)
    kmsg_reader_open (&kmsg, cgroup_memory_path (&l->cg), &kev);
  l->cgroup_ready = monitor_late;
  l->cgroup_ready_arg = &mon;
  if (ret == 0)
    ret = sigfd = supervise_signals_fd (err);
  if (ret >= 0)
    ret = launch_spawn (o, l, err);
  if (ret >= 0)
    lifecycle_poststart (l->dirfd, l->cfg, &l->st);
  if (ret >= 0)
    ret = supervise_wait (&l->proc, sigfd, &mon, &status, err);
  if (ret >= 0)
    {
      /* Read before the teardown below empties and removes the cgroup. */
      bool read_after_exit = monitor_update (&mon, &tmp) == 0;
      if (!read_after_exit)
        log_error_release (&tmp);
      if (kmsg_reader_fd (&kmsg) >= 0)
        kmsg_reader_collect_end (&kmsg, &kev);
      evidence_input_init (&src, o->c.id, l->cg.memory_limit_enforced);
      evidence_input_monitor (&src, &mon, status, l->cg.path ? &kev : NULL, read_after_exit);
      evidence_input_init_pid (&src, l->proc.pid);
      /* Under a shared lock: a `kill` that delivered init's signal has
       * recorded it before this read. */
      lifecycle_signals (l->dirfd, true, &src);
      evidence_input_compute (&src, &v);
      *exit_code = supervise_exit_code (status);
      if (ro->on_verdict)
        ro->on_verdict (&v, *exit_code, ro->opaque);
      lifecycle_mark_oom (l->dirfd, l->cfg, &l->st, false, &v);
      lifecycle_tell (ctx->history, l->dirfd, l->cfg, &l->st, "run", &v);
    }
  /* Without a pid namespace init's children outlive it; cgroup.kill
   * reaches them all, even those that left the process group. */
  if (cgroup_destroy (&l->cg, ret < 0 ? &tmp : err) < 0)
    {
      if (ret < 0)
        log_error_release (&tmp);
      return -1;
    }
  if (ret < 0)
    return -1;
  lifecycle_poststop (l->dirfd, l->cfg, &l->st, &v);
  if (ro->keep)
    {
      cleanup_free char *vjson = NULL;
      if (verdict_to_json (&v, &vjson, err) < 0
          || util_write_file_atomic_at (l->dirfd, STATE_VERDICT, vjson, strlen (vjson), 0600, err) < 0)
        return -1;
    }
  return 0;
}

int
runtime_run (const struct runtime_ctx *ctx, const struct runtime_run_opts *ro, int *exit_code, shim_error_t *err)
{
  struct launch_opts o = { .c = ro->c, .detach = ro->detach };
  cleanup_launch struct launch l = LAUNCH_INIT;
  cleanup_free char *gen_id = NULL;
  int ret;

  *exit_code = 1;
  if (o.c.id == NULL)
    {
      gen_id = generate_id (o.c.bundle);
      if (gen_id == NULL)
        return shim_error_errno (err, "generate a container id");
      o.c.id = gen_id;
    }
  if (launch_prepare (ctx, &o, &l, err) < 0)
    {
      launch_abort (ctx, &l);
      return -1;
    }
  if (o.detach)
    {
      if (launch_spawn (&o, &l, err) < 0)
        {
          launch_abort (ctx, &l);
          return -1;
        }
      lifecycle_poststart (l.dirfd, l.cfg, &l.st);
      *exit_code = 0;
      return 0;
    }
  ret = run_foreground (ctx, ro, &o, &l, exit_code, err);
  if (ret < 0 || !ro->keep)
    {
      shim_error_t rm_err = NULL;
      if (state_remove (ctx->root, o.c.id, &rm_err) < 0)
        log_error_release (&rm_err);
    }
  if (ret < 0 && l.proc.pidfd >= 0)
    launch_abort (ctx, &l);
  return ret;
}
