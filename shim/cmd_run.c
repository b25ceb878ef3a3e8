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

#include "cgroup.h"
#include "commands.h"
#include "config.h"
#include "container.h"
#include "log.h"
#include "monitor.h"
#include "state.h"
#include "util.h"
#include "verdict.h"

/* Signals a person or an engine sends to the runtime that belong to the
 * container (runc forwards the same set). */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };

struct run_opts
{
  const char *bundle;
  const char *id;
  bool no_pivot;
  bool json;
  bool allow_unenforced;
  bool has_memory;
  int64_t memory;
};

static void
config_warning (void *opaque, const char *path, const char *why)
{
  (void) opaque;
  log_msg (LOG_WARNING, "config.json: %s: %s", path, why);
}

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

static int
wait_status_to_exit_code (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return 1;
}

/* Wait for init while forwarding signals and watching the cgroup's memory
 * events.  Returns its wait status. */
static int
supervise (struct container_proc *proc, int sigfd, struct monitor *mon, int *status, shim_error_t *err)
{
  for (;;)
    {
      struct pollfd pfd[3] = {
        { .fd = proc->pidfd, .events = POLLIN },
        { .fd = sigfd, .events = POLLIN },
        { .fd = monitor_fd (mon), .events = POLLPRI },
      };
      if (poll (pfd, 3, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return shim_error_errno (err, "poll");
        }
      if (pfd[2].revents & (POLLPRI | POLLERR))
        {
          shim_error_t tmp = NULL;
          /* The evidence is taken now: the OOM may be followed by the
           * cgroup emptying and its memory.stat showing nothing. */
          if (monitor_update (mon, &tmp) < 0)
            log_error_release (&tmp);
        }
      if (pfd[1].revents & POLLIN)
        {
          struct signalfd_siginfo si;
          if (read (sigfd, &si, sizeof (si)) == sizeof (si))
            {
              log_msg (LOG_DEBUG, "forwarding signal %u to the container's init", si.ssi_signo);
              if (syscall (SYS_pidfd_send_signal, proc->pidfd, (int) si.ssi_signo, NULL, 0) < 0
                  && errno != ESRCH)
                log_msg (LOG_WARNING, "forward signal %u: %s", si.ssi_signo, strerror (errno));
            }
        }
      if (pfd[0].revents & (POLLIN | POLLHUP))
        {
          siginfo_t si = { 0 };
          if (waitid (P_PIDFD, (id_t) proc->pidfd, &si, WEXITED) < 0)
            return shim_error_errno (err, "waitid on the container's init");
          if (si.si_code == CLD_EXITED)
            *status = W_EXITCODE (si.si_status, 0);
          else
            *status = W_EXITCODE (0, si.si_status) | (si.si_code == CLD_DUMPED ? WCOREFLAG : 0);
          return 0;
        }
    }
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
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "b:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': o->bundle = optarg; break;
      case 'P': o->no_pivot = true; break;
      case 'j': o->json = true; break;
      case 'U': o->allow_unenforced = true; break;
      case 'm':
        if (parse_size (optarg, &o->memory) < 0)
          return shim_error_plain (err, EINVAL, "run: --memory `%s`: not a size (e.g. 512M, 2G)", optarg);
        o->has_memory = true;
        break;
      case 'h':
        printf ("usage: shim run [--bundle DIR] [options] [ID]\n"
                "       shim run [options] BUNDLE/\n\n"
                "  --json                     print the verdict as one JSON line on stderr\n"
                "  --memory SIZE              memory limit for this run (e.g. 512M)\n"
                "  --allow-unenforced-limits  run even where a limit cannot be enforced\n"
                "  --no-pivot                 chroot instead of pivot_root\n");
        return 1;
      default:
        return shim_error_plain (err, EINVAL, "run: unknown option (see `shim run --help`)");
      }
  if (optind < argc - 1)
    return shim_error (err, EINVAL, "run: unexpected argument `%s`", argv[optind + 1]);
  if (optind == argc - 1)
    {
      if (o->bundle == NULL && looks_like_bundle (argv[optind]))
        o->bundle = argv[optind];
      else
        o->id = argv[optind];
    }
  if (o->bundle == NULL)
    o->bundle = ".";
  return 0;
}

static void
cleanup_cgroupp (struct shim_cgroup *cg)
{
  cgroup_release (cg);
}

static void
cleanup_monitorp (struct monitor *m)
{
  monitor_release (m);
}

/* Block the forwarded signals (before the clone, so none is lost; the child
 * unblocks them) and return a signalfd for them. */
static int
forward_signals_fd (shim_error_t *err)
{
  sigset_t mask;
  size_t i;
  int fd;

  sigemptyset (&mask);
  for (i = 0; i < sizeof (forwarded) / sizeof (forwarded[0]); i++)
    {
      /* A signal our caller left ignored never reaches a signalfd; runc
       * forwards those too. */
      signal (forwarded[i], SIG_DFL);
      sigaddset (&mask, forwarded[i]);
    }
  /* Ignored SIGCHLD makes the kernel reap init itself and waitid fail. */
  signal (SIGCHLD, SIG_DFL);
  if (sigprocmask (SIG_BLOCK, &mask, NULL) < 0)
    return shim_error_errno (err, "sigprocmask");
  fd = signalfd (-1, &mask, SFD_CLOEXEC);
  if (fd < 0)
    return shim_error_errno (err, "signalfd");
  return fd;
}

/* Everything after the state dir exists; the caller removes it whatever
 * happens here. */
static int
run_container (struct global_opts *g, struct run_opts *o, struct shim_config *cfg, int *exit_code,
               shim_error_t *err)
{
  __attribute__ ((cleanup (cleanup_cgroupp))) struct shim_cgroup cg = { .dirfd = -1, .mountfd = -1 };
  __attribute__ ((cleanup (cleanup_monitorp))) struct monitor mon = { .events_fd = -1 };
  struct cgroup_opts cgo = { .systemd = g->systemd_cgroup, .allow_unenforced = o->allow_unenforced };
  struct container_opts copts = { .no_pivot = o->no_pivot, .id = o->id, .cgroup_fd = -1 };
  struct container_proc proc = { .pid = -1, .pidfd = -1 };
  struct verdict_input vin = { .container_id = o->id };
  struct verdict v;
  cleanup_close int sigfd = -1;
  shim_error_t tmp = NULL;
  int status = 0, ret;

  if (cgroup_create (cfg, o->id, &cgo, &cg, err) < 0)
    return -1;
  log_msg (LOG_DEBUG, "container %s: cgroup %s", o->id, cg.path ? cg.path : "(none)");
  copts.cgroup_fd = cg.dirfd;
  ret = monitor_init (&mon, cg.dirfd, err);
  if (ret == 0)
    ret = sigfd = forward_signals_fd (err);
  if (ret >= 0)
    ret = container_spawn (cfg, &copts, &proc, err);
  if (ret >= 0)
    {
      log_msg (LOG_DEBUG, "container %s: init is pid %d", o->id, (int) proc.pid);
      ret = supervise (&proc, sigfd, &mon, &status, err);
      close (proc.pidfd);
    }
  if (ret >= 0)
    {
      /* Read before the teardown below empties and removes the cgroup. */
      if (monitor_update (&mon, &tmp) < 0)
        log_error_release (&tmp);
      monitor_fill_input (&mon, &vin);
      vin.memory_limit_enforced = cg.memory_limit_enforced;
      vin.have_status = true;
      vin.status = status;
      verdict_compute (&vin, &v);
      *exit_code = wait_status_to_exit_code (status);
      report_verdict (&v, o->json, *exit_code);
    }
  /* Without a pid namespace init's children outlive it; cgroup.kill
   * reaches them all, even those that left the process group. */
  if (cgroup_destroy (&cg, ret < 0 ? &tmp : err) < 0)
    {
      if (ret < 0)
        log_error_release (&tmp);
      return -1;
    }
  return ret < 0 ? -1 : 0;
}

int
cmd_run (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  struct run_opts o = { 0 };
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_free char *gen_id = NULL;
  cleanup_close int state_fd = -1;
  shim_error_t rm_err = NULL;
  struct stat st;
  int exit_code = 1, ret;

  ret = parse_run_opts (argc, argv, &o, err);
  if (ret != 0)
    return ret < 0 ? -1 : 0;
  if (shim_config_load (o.bundle, &cfg, config_warning, NULL, err) < 0)
    return -1;
  if (o.has_memory)
    {
      cfg->has_resources = true;
      cfg->resources.has_memory_limit = true;
      cfg->resources.memory_limit = o.memory;
    }
  if (o.id == NULL)
    {
      gen_id = generate_id (cfg->bundle);
      if (gen_id == NULL)
        return shim_error_errno (err, "generate a container id");
      o.id = gen_id;
    }
  if (state_validate_id (o.id, err) < 0)
    return -1;
  if (stat (cfg->root_path, &st) < 0)
    return shim_error_errno (err, "root.path `%s`", cfg->root_path);
  if (!S_ISDIR (st.st_mode))
    return shim_error_plain (err, ENOTDIR, "root.path `%s`: not a directory", cfg->root_path);
  state_fd = state_create (g->root, o.id, err);
  if (state_fd < 0)
    return -1;

  ret = run_container (g, &o, cfg, &exit_code, err);
  if (state_remove (g->root, o.id, &rm_err) < 0)
    log_error_release (&rm_err);
  return ret < 0 ? -1 : exit_code;
}
