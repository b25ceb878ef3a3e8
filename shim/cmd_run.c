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

#include "commands.h"
#include "config.h"
#include "container.h"
#include "log.h"
#include "state.h"
#include "util.h"

/* Signals a person or an engine sends to the runtime that belong to the
 * container (runc forwards the same set). */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };

struct run_opts
{
  const char *bundle;
  const char *id;
  bool no_pivot;
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

/* Wait for init while forwarding signals.  Returns its wait status. */
static int
supervise (struct container_proc *proc, int sigfd, int *status, shim_error_t *err)
{
  for (;;)
    {
      struct pollfd pfd[2] = { { .fd = proc->pidfd, .events = POLLIN }, { .fd = sigfd, .events = POLLIN } };
      if (poll (pfd, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return shim_error_errno (err, "poll");
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

static int
parse_run_opts (int argc, char **argv, struct run_opts *o, shim_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "no-pivot", no_argument, NULL, 'P' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  while ((c = getopt_long (argc, argv, "b:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': o->bundle = optarg; break;
      case 'P': o->no_pivot = true; break;
      case 'h':
        printf ("usage: shim run [--bundle DIR] [--no-pivot] [ID]\n"
                "       shim run [options] BUNDLE/\n");
        return 1;
      default:
        return shim_error (err, EINVAL, "run: unknown option (see `shim run --help`)");
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

int
cmd_run (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  struct run_opts o = { 0 };
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_free char *gen_id = NULL;
  cleanup_close int state_fd = -1;
  cleanup_close int sigfd = -1;
  struct container_opts copts = { .cgroup_fd = -1 };
  struct container_proc proc = { .pid = -1, .pidfd = -1 };
  sigset_t mask, old;
  int status = 0, ret;
  size_t i;
  shim_error_t rm_err = NULL;

  ret = parse_run_opts (argc, argv, &o, err);
  if (ret != 0)
    return ret < 0 ? -1 : 0;
  if (shim_config_load (o.bundle, &cfg, config_warning, NULL, err) < 0)
    return -1;
  if (o.id == NULL)
    {
      gen_id = generate_id (cfg->bundle);
      if (gen_id == NULL)
        return shim_error_errno (err, "generate a container id");
      o.id = gen_id;
    }
  if (state_validate_id (o.id, err) < 0)
    return -1;
  {
    struct stat st;
    if (stat (cfg->root_path, &st) < 0)
      return shim_error_errno (err, "root.path `%s`", cfg->root_path);
    if (!S_ISDIR (st.st_mode))
      return shim_error (err, ENOTDIR, "root.path `%s`: not a directory", cfg->root_path);
  }
  state_fd = state_create (g->root, o.id, err);
  if (state_fd < 0)
    return -1;

  /* Blocked before the clone so none is lost; the child unblocks them. */
  sigemptyset (&mask);
  for (i = 0; i < sizeof (forwarded) / sizeof (forwarded[0]); i++)
    sigaddset (&mask, forwarded[i]);
  if (sigprocmask (SIG_BLOCK, &mask, &old) < 0)
    ret = shim_error_errno (err, "sigprocmask");
  else if ((sigfd = signalfd (-1, &mask, SFD_CLOEXEC)) < 0)
    ret = shim_error_errno (err, "signalfd");
  else
    {
      copts.no_pivot = o.no_pivot;
      ret = container_spawn (cfg, &copts, &proc, err);
    }
  if (ret == 0)
    {
      log_msg (LOG_DEBUG, "container %s: init is pid %d", o.id, (int) proc.pid);
      ret = supervise (&proc, sigfd, &status, err);
      close (proc.pidfd);
    }
  if (state_remove (g->root, o.id, &rm_err) < 0)
    log_error_release (&rm_err);
  if (ret < 0)
    return -1;
  return wait_status_to_exit_code (status);
}
