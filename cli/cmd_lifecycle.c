/* SPDX-License-Identifier: Apache-2.0 */
/* create, start, kill, delete: the runc lifecycle engines drive.  `create`
 * leaves init waiting on exec.sock and returns, so init is inherited by the
 * caller's subreaper (conmon, containerd-shim); `start` releases it. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cli/commands.h"
#include "runtime/oci_hooks.h"
#include "runtime/lifecycle.h"
#include "common/log.h"
#include "common/util.h"

static void
cleanup_refp (struct container_ref *r)
{
  container_ref_release (r);
}
#define cleanup_ref __attribute__ ((cleanup (cleanup_refp)))

static void
cleanup_launchp (struct launch *l)
{
  launch_release (l);
}

/* The id: the one operand the command takes. */
static int
one_id (const char *cmd, int argc, char **argv, const char **id, shim_error_t *err)
{
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "%s: a container id is required", cmd);
  *id = argv[optind++];
  return 0;
}

static int
unknown_option (const char *cmd, char **argv, shim_error_t *err)
{
  return shim_error_plain (err, EINVAL, "%s: unknown option `%s`", cmd, argv[optind - 1]);
}

int
cmd_create (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "pid-file", required_argument, NULL, 'p' },
    { "console-socket", required_argument, NULL, 'c' },
    { "no-pivot", no_argument, NULL, 'P' },
    /* runc's, accepted: shim makes no session keyring and is no subreaper
     * anyway; --preserve-fds is LISTEN_FDS' job here. */
    { "no-new-keyring", no_argument, NULL, 'K' },
    { "no-subreaper", no_argument, NULL, 'K' },
    { "preserve-fds", required_argument, NULL, 'K' },
    { "allow-unenforced-limits", no_argument, NULL, 'U' },
    { NULL, 0, NULL, 0 },
  };
  __attribute__ ((cleanup (cleanup_launchp))) struct launch l = {
    .dirfd = -1, .proc = { .pidfd = -1, .pty_master = -1 }, .cg = { .dirfd = -1, .mountfd = -1 }
  };
  struct launch_opts o = { .bundle = ".", .detach = true, .wait_start = true };
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+b:", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': o.bundle = optarg; break;
      case 'p': o.pid_file = optarg; break;
      case 'c': o.console_socket = optarg; break;
      case 'P': o.no_pivot = true; break;
      case 'U': o.allow_unenforced = true; break;
      case 'K': break;
      default: return unknown_option ("create", argv, err);
      }
  if (one_id ("create", argc, argv, &o.id, err) < 0)
    return -1;
  if (launch_prepare (g, &o, &l, err) < 0 || launch_spawn (g, &o, &l, err) < 0)
    {
      launch_abort (g, &l);
      return -1;
    }
  return 0;
}

int
cmd_start (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  cleanup_ref struct container_ref r = { .dirfd = -1 };
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_free char *json = NULL;
  const char *id = NULL;
  int ret;

  optind = 1;
  if (one_id ("start", argc, argv, &id, err) < 0 || container_ref_open (g, id, true, &r, err) < 0
      || container_ref_need (&r, "start", ST (STATUS_CREATED), err) < 0)
    return -1;
  if (r.st.hook_stages & (1u << HOOK_START_CONTAINER))
    {
      shim_error_t tmp = NULL;
      if (lifecycle_state_json (&r.st, STATUS_CREATED, NULL, &json, &tmp) < 0)
        log_error_release (&tmp);
    }
  ret = container_release (r.dirfd, json, err);
  free (steal_pointer (&json));
  /* Released or dead: either way nobody waits on it any more, and its
   * absence is what says "not created". */
  if (unlinkat (r.dirfd, STATE_EXEC_SOCK, 0) < 0 && errno != ENOENT && ret == 0)
    return shim_error_errno (err, "remove `%s`", STATE_EXEC_SOCK);
  if (ret < 0)
    return -1;
  if (r.st.hook_stages & (1u << HOOK_POSTSTART))
    {
      shim_error_t tmp = NULL;
      if (lifecycle_saved_config (r.dirfd, &r.st, &cfg, &tmp) < 0
          || lifecycle_state_json (&r.st, STATUS_RUNNING, NULL, &json, &tmp) < 0)
        log_error_release (&tmp);
      else
        oci_hooks_run_all (cfg, HOOK_POSTSTART, json);
    }
  return 0;
}

static const struct
{
  const char *name;
  int sig;
} signal_names[] = {
  { "HUP", SIGHUP },     { "INT", SIGINT },       { "QUIT", SIGQUIT },   { "ILL", SIGILL },
  { "TRAP", SIGTRAP },   { "ABRT", SIGABRT },     { "IOT", SIGIOT },     { "BUS", SIGBUS },
  { "FPE", SIGFPE },     { "KILL", SIGKILL },     { "USR1", SIGUSR1 },   { "SEGV", SIGSEGV },
  { "USR2", SIGUSR2 },   { "PIPE", SIGPIPE },     { "ALRM", SIGALRM },   { "TERM", SIGTERM },
  { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD },   { "CONT", SIGCONT },   { "STOP", SIGSTOP },
  { "TSTP", SIGTSTP },   { "TTIN", SIGTTIN },     { "TTOU", SIGTTOU },   { "URG", SIGURG },
  { "XCPU", SIGXCPU },   { "XFSZ", SIGXFSZ },     { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
  { "WINCH", SIGWINCH }, { "IO", SIGIO },          { "POLL", SIGPOLL },   { "PWR", SIGPWR },
  { "SYS", SIGSYS },
};

/* "KILL", "SIGKILL", "sigkill", "9", "RTMIN+3". */
int
parse_signal (const char *s, int *out)
{
  int64_t n;
  size_t i;

  if (util_parse_i64 (s, &n) == 0)
    {
      if (n < 1 || n > SIGRTMAX)
        return -1;
      *out = (int) n;
      return 0;
    }
  if (strncasecmp (s, "SIG", 3) == 0)
    s += 3;
  for (i = 0; i < sizeof (signal_names) / sizeof (signal_names[0]); i++)
    if (strcasecmp (s, signal_names[i].name) == 0)
      {
        *out = signal_names[i].sig;
        return 0;
      }
  if (strncasecmp (s, "RTMIN", 5) == 0 || strncasecmp (s, "RTMAX", 5) == 0)
    {
      bool max = strncasecmp (s, "RTMAX", 5) == 0;
      int64_t off = 0;
      if (s[5] && ((s[5] != '+' && s[5] != '-') || util_parse_i64 (s + 5, &off) < 0))
        return -1;
      n = (max ? SIGRTMAX : SIGRTMIN) + off;
      if (n < SIGRTMIN || n > SIGRTMAX)
        return -1;
      *out = (int) n;
      return 0;
    }
  return -1;
}

/* A pidfd for init that is certainly init: the start time is checked after
 * the pidfd pins the process, so a reused pid is never signalled. */
static int
open_init (const struct shim_state *st, shim_error_t *err)
{
  cleanup_close int fd = (int) syscall (SYS_pidfd_open, st->pid, 0);
  uint64_t start;
  bool zombie;

  if (fd < 0)
    return shim_error_errno (err, "container `%s`: pidfd_open(%d)", st->id, (int) st->pid);
  if (proc_start_time (st->pid, &start, &zombie, err) < 0)
    return -1;
  if (start != st->pid_start)
    return shim_error_plain (err, ESRCH, "container `%s` is not running", st->id);
  return steal_fd (&fd);
}

static int
send_signal (struct container_ref *r, int sig, bool all, shim_error_t *err)
{
  cleanup_close int pidfd = -1;

  /* Recorded before it is sent: the verdict must know a SIGKILL was ours
   * even if we die right after sending it. */
  if (state_record_signal (r->dirfd, sig, err) < 0)
    return -1;
  if (all)
    return cgroup_signal_all (&r->cg, sig, err);
  pidfd = open_init (&r->st, err);
  if (pidfd < 0)
    return -1;
  if (syscall (SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0)
    return shim_error_errno (err, "container `%s`: signal %d", r->st.id, sig);
  return 0;
}

int
cmd_kill (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "all", no_argument, NULL, 'a' },
    { NULL, 0, NULL, 0 },
  };
  cleanup_ref struct container_ref r = { .dirfd = -1 };
  bool all = false;
  const char *id = NULL;
  int c, sig = SIGTERM;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+a", opts, NULL)) != -1)
    switch (c)
      {
      case 'a': all = true; break;
      default: return unknown_option ("kill", argv, err);
      }
  if (one_id ("kill", argc, argv, &id, err) < 0)
    return -1;
  if (optind < argc && parse_signal (argv[optind++], &sig) < 0)
    return shim_error_plain (err, EINVAL, "kill: `%s`: not a signal", argv[optind - 1]);
  if (optind < argc)
    return shim_error_plain (err, EINVAL, "kill: unexpected argument `%s`", argv[optind]);
  if (container_ref_open (g, id, true, &r, err) < 0)
    return -1;
  /* runc: a stopped container takes no signal, except with --all (what is
   * left in its cgroup). */
  if (!all && container_ref_need (&r, "kill", ST (STATUS_CREATED) | ST (STATUS_RUNNING) | ST (STATUS_PAUSED), err) < 0)
    return -1;
  if (r.status == STATUS_CREATING)
    return shim_error_plain (err, EBUSY, "container `%s` is still being created", id);
  return send_signal (&r, sig, all, err);
}

/* Until init is gone (it is not our child: a pidfd polls readable when it
 * exits). */
static int
wait_init_gone (const struct shim_state *st, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  cleanup_close int fd = open_init (st, &tmp);
  struct pollfd p = { .fd = fd, .events = POLLIN };

  if (fd < 0)
    {
      shim_error_release (&tmp);
      return 0;
    }
  while (poll (&p, 1, -1) < 0)
    if (errno != EINTR)
      return shim_error_errno (err, "wait for init of `%s`", st->id);
  return 0;
}

int
cmd_delete (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "force", no_argument, NULL, 'f' },
    { NULL, 0, NULL, 0 },
  };
  cleanup_ref struct container_ref r = { .dirfd = -1 };
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_free char *json = NULL;
  cleanup_free char *vjson = NULL;
  shim_error_t tmp = NULL;
  struct verdict v;
  bool force = false;
  const char *id = NULL;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+f", opts, NULL)) != -1)
    switch (c)
      {
      case 'f': force = true; break;
      default: return unknown_option ("delete", argv, err);
      }
  if (one_id ("delete", argc, argv, &id, err) < 0)
    return -1;
  if (container_ref_open (g, id, true, &r, err) < 0)
    {
      /* runc: deleting what is not there is no error with --force. */
      if (force && (*err)->status == ENOENT)
        {
          shim_error_release (err);
          return 0;
        }
      return -1;
    }
  if (r.status == STATUS_CREATING)
    {
      if (!force)
        return container_ref_need (&r, "delete", 0, err);
      return state_remove (g->root, id, err);
    }
  /* A created container has run nothing yet: runc deletes it without
   * --force, and so do we. */
  if (!force && container_ref_need (&r, "delete", ST (STATUS_STOPPED) | ST (STATUS_CREATED), err) < 0)
    return -1;
  if (r.status != STATUS_STOPPED)
    {
      if (send_signal (&r, SIGKILL, r.cg.dirfd >= 0, err) < 0 || wait_init_gone (&r.st, err) < 0)
        return -1;
    }
  /* The verdict before anything is removed, kept in the log. */
  if (!r.st.foreground)
    {
      lifecycle_verdict (r.dirfd, &r.st, &r.cg, &v, &tmp);
      lifecycle_mark_oom (&r.st, &v);
      if (verdict_to_json (&v, &vjson, &tmp) == 0)
        log_msg (LOG_INFO, "container %s: %s; verdict %s", id, v.message, vjson);
      shim_error_release (&tmp);
    }
  if (cgroup_destroy (&r.cg, err) < 0)
    return -1;
  if (r.st.hook_stages & (1u << HOOK_POSTSTOP))
    {
      if (lifecycle_saved_config (r.dirfd, &r.st, &cfg, &tmp) < 0
          || lifecycle_state_json (&r.st, STATUS_STOPPED, r.st.foreground ? NULL : &v, &json, &tmp) < 0)
        log_error_release (&tmp);
      else
        oci_hooks_run_all (cfg, HOOK_POSTSTOP, json);
    }
  return state_remove (g->root, id, err);
}
