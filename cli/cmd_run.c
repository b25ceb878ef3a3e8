/* SPDX-License-Identifier: Apache-2.0 */
/* `shim run`: create the container, wait for it in the foreground, pass its
 * exit code through. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cli/commands.h"
#include "runtime/config.h"
#include "runtime/container.h"
#include "runtime/oci_hooks.h"
#include "runtime/lifecycle.h"
#include "common/log.h"
#include "verdict/monitor.h"
#include "runtime/state.h"
#include "runtime/supervise.h"
#include "common/util.h"
#include "verdict/verdict.h"

struct run_opts
{
  struct launch_opts l;
  bool json;
  bool keep;
};

/* `shim run DIR/`: an argument with a slash, or naming a directory, is the
 * bundle; ids hold no slash. */
static bool
looks_like_bundle (const char *arg)
{
  struct stat st;
  return strchr (arg, '/') != NULL || (stat (arg, &st) == 0 && S_ISDIR (st.st_mode));
}

static char *
generate_id (const char *bundle)
{
  cleanup_free char *copy = strdup (bundle);
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
  /* A bundle named with characters ids may not hold falls back to "shim". */
  if (state_validate_id (id, NULL) < 0)
    {
      free (id);
      if (asprintf (&id, "shim-%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]) < 0)
        return NULL;
    }
  return id;
}

/* "64M", "1.5G", "512k", "1048576": bytes.  Binary units, as docker's
 * --memory. */
static int
parse_size (const char *s, int64_t *out)
{
  char *end;
  double v;
  double mult = 1;

  errno = 0;
  v = strtod (s, &end);
  if (errno || end == s || v <= 0)
    return -1;
  switch (*end)
    {
    case '\0': break;
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return -1;
    }
  if (*end == 'i' && end[-1] != *s)
    end++;
  if (*end == 'b' || *end == 'B')
    end++;
  if (*end != '\0' || v * mult > 9e18)
    return -1;
  *out = (int64_t) (v * mult);
  return 0;
}

static void
report_verdict (const struct verdict *v, bool json, int exit_code)
{
  if (json)
    {
      cleanup_free char *line = NULL;
      shim_error_t tmp = NULL;
      if (verdict_to_json (v, &line, &tmp) < 0)
        log_error_release (&tmp);
      else
        fprintf (stderr, "%s\n", line);
      return;
    }
  /* A clean exit needs no explanation. */
  if (exit_code == 0 && v->reason == VERDICT_EXITED && v->oom_killed != VERDICT_TRUE && !v->have_oom)
    return;
  fprintf (stderr, "shim: %s\n", v->message);
  if (v->hint[0])
    fprintf (stderr, "shim: hint: %s\n", v->hint);
}

static int
parse_run_opts (int argc, char **argv, struct run_opts *o, shim_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "no-pivot", no_argument, NULL, 'P' },
    { "json", no_argument, NULL, 'j' },
    { "memory", required_argument, NULL, 'm' },
    { "allow-unenforced-limits", no_argument, NULL, 'U' },
    { "detach", no_argument, NULL, 'd' },
    { "keep", no_argument, NULL, 'k' },
    { "pid-file", required_argument, NULL, 'p' },
    { "console-socket", required_argument, NULL, 'c' },
    /* runc's, accepted with its meaning where it has one for us. */
    { "no-new-keyring", no_argument, NULL, 'K' },
    { "no-subreaper", no_argument, NULL, 'K' },
    { "preserve-fds", required_argument, NULL, 'F' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+b:dh", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': o->l.bundle = optarg; break;
      case 'P': o->l.no_pivot = true; break;
      case 'j': o->json = true; break;
      case 'U': o->l.allow_unenforced = true; break;
      case 'd': o->l.detach = true; break;
      case 'k': o->keep = true; break;
      case 'p': o->l.pid_file = optarg; break;
      case 'c': o->l.console_socket = optarg; break;
      case 'K': case 'F': break;
      case 'm':
        if (parse_size (optarg, &o->l.memory) < 0)
          return shim_error_plain (err, EINVAL, "run: --memory `%s`: not a size (e.g. 512M, 2G)", optarg);
        o->l.has_memory = true;
        break;
      case 'h':
        printf ("usage: shim run [--bundle DIR] [options] [ID]\n"
                "       shim run [options] BUNDLE/\n\n"
                "  --json                     print the verdict as one JSON line on stderr\n"
                "  --memory SIZE              memory limit for this run (e.g. 512M)\n"
                "  --allow-unenforced-limits  run even where a limit cannot be enforced\n"
                "  --detach, -d               start it and return; `shim delete` removes it\n"
                "  --keep                     keep the stopped container for `shim state`\n"
                "  --pid-file FILE            write init's pid there\n"
                "  --console-socket SOCK      send the terminal's master there\n"
                "  --no-pivot                 chroot instead of pivot_root\n");
        return 1;
      default:
        return shim_error_plain (err, EINVAL, "run: unknown option `%s` (see `shim run --help`)",
                                 argv[optind - 1]);
      }
  if (optind < argc - 1)
    return shim_error (err, EINVAL, "run: unexpected argument `%s`", argv[optind + 1]);
  if (optind == argc - 1)
    {
      if (o->l.bundle == NULL && looks_like_bundle (argv[optind]))
        o->l.bundle = argv[optind];
      else
        o->l.id = argv[optind];
    }
  if (o->l.bundle == NULL)
    o->l.bundle = ".";
  return 0;
}

static void
cleanup_monitorp (struct monitor *m)
{
  monitor_release (m);
}

static void
cleanup_launchp (struct launch *l)
{
  launch_release (l);
}

/* The foreground run: init's parent to the end, so the verdict has its
 * exit status. */
static int
run_foreground (struct global_opts *g, struct run_opts *o, struct launch *l, int *exit_code,
                shim_error_t *err)
{
  __attribute__ ((cleanup (cleanup_monitorp))) struct monitor mon = { .events_fd = -1 };
  struct verdict_input vin = { .container_id = o->l.id };
  struct verdict v;
  cleanup_close int sigfd = -1;
  cleanup_free char *json = NULL;
  shim_error_t tmp = NULL;
  int status = 0, ret;

  ret = monitor_init (&mon, l->cg.dirfd, err);
  if (ret == 0)
    ret = sigfd = supervise_signals_fd (err);
  if (ret >= 0)
    ret = launch_spawn (g, &o->l, l, err);
  if (ret >= 0 && l->cfg->hooks[HOOK_POSTSTART].n
      && lifecycle_state_json (&l->st, STATUS_RUNNING, NULL, &json, &tmp) == 0)
    oci_hooks_run_all (l->cfg, HOOK_POSTSTART, json);
  shim_error_release (&tmp);
  if (ret >= 0)
    ret = supervise_wait (&l->proc, sigfd, &mon, &status, err);
  if (ret >= 0)
    {
      /* Read before the teardown below empties and removes the cgroup. */
      if (monitor_update (&mon, &tmp) < 0)
        log_error_release (&tmp);
      monitor_fill_input (&mon, &vin);
      vin.memory_limit_enforced = l->cg.memory_limit_enforced;
      vin.have_status = true;
      vin.status = status;
      vin.signals_sent = state_signals_sent (l->dirfd);
      verdict_compute (&vin, &v);
      *exit_code = wait_status_to_exit_code (status);
      report_verdict (&v, o->json, *exit_code);
      lifecycle_mark_oom (&l->st, &v);
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
  free (json);
  json = NULL;
  if (l->cfg->hooks[HOOK_POSTSTOP].n && lifecycle_state_json (&l->st, STATUS_STOPPED, &v, &json, &tmp) == 0)
    oci_hooks_run_all (l->cfg, HOOK_POSTSTOP, json);
  shim_error_release (&tmp);
  if (o->keep)
    {
      cleanup_free char *vjson = NULL;
      if (verdict_to_json (&v, &vjson, err) < 0
          || util_write_file_atomic_at (l->dirfd, STATE_VERDICT, vjson, strlen (vjson), 0600, err) < 0)
        return -1;
    }
  return 0;
}

int
cmd_run (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  struct run_opts o = { 0 };
  __attribute__ ((cleanup (cleanup_launchp))) struct launch l = { .dirfd = -1, .proc = { .pidfd = -1, .pty_master = -1 }, .cg = { .dirfd = -1, .mountfd = -1 } };
  cleanup_free char *gen_id = NULL;
  int exit_code = 1, ret;

  ret = parse_run_opts (argc, argv, &o, err);
  if (ret != 0)
    return ret < 0 ? -1 : 0;
  if (o.l.id == NULL)
    {
      gen_id = generate_id (o.l.bundle);
      if (gen_id == NULL)
        return shim_error_errno (err, "generate a container id");
      o.l.id = gen_id;
    }
  if (launch_prepare (g, &o.l, &l, err) < 0)
    {
      launch_abort (g, &l);
      return -1;
    }
  if (o.l.detach)
    {
      cleanup_free char *json = NULL;
      shim_error_t tmp = NULL;
      if (launch_spawn (g, &o.l, &l, err) < 0)
        {
          launch_abort (g, &l);
          return -1;
        }
      if (l.cfg->hooks[HOOK_POSTSTART].n && lifecycle_state_json (&l.st, STATUS_RUNNING, NULL, &json, &tmp) == 0)
        oci_hooks_run_all (l.cfg, HOOK_POSTSTART, json);
      shim_error_release (&tmp);
      return 0;
    }
  ret = run_foreground (g, &o, &l, &exit_code, err);
  if (ret < 0 || !o.keep)
    {
      shim_error_t rm_err = NULL;
      if (state_remove (g->root, o.l.id, &rm_err) < 0)
        log_error_release (&rm_err);
    }
  if (ret < 0 && l.proc.pidfd >= 0)
    launch_abort (g, &l);
  return ret < 0 ? -1 : exit_code;
}
