/* SPDX-License-Identifier: Apache-2.0 */
/* exec: another process in a running container.  The process is the one
 * of --process FILE, or the container's own (env, cwd, user, rlimits,
 * noNewPrivileges from the config saved at create) with the args, env,
 * cwd and user given on the command line, as runc does. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "runtime/container.h"
#include "runtime/lifecycle.h"
#include "common/log.h"
#include "runtime/supervise.h"
#include "common/util.h"

static void
cleanup_refp (struct container_ref *r)
{
  container_ref_release (r);
}

static void
cleanup_processp (struct shim_process *p)
{
  shim_process_free (p);
}

/* Append to a NULL-terminated vector (env). */
static int
strv_add (char ***v, size_t *n, const char *s)
{
  char **nv = realloc (*v, (*n + 2) * sizeof (char *));
  if (nv == NULL)
    return -1;
  *v = nv;
  nv[*n] = strdup (s);
  if (nv[*n] == NULL)
    return -1;
  nv[++*n] = NULL;
  return 0;
}

/* KEY=VALUE replaces KEY in the container's env, or is added. */
static int
env_set (struct shim_process *p, const char *kv)
{
  size_t klen = strcspn (kv, "="), i;
  for (i = 0; i < p->n_env; i++)
    if (strncmp (p->env[i], kv, klen) == 0 && p->env[i][klen] == '=')
      {
        char *d = strdup (kv);
        if (d == NULL)
          return -1;
        free (p->env[i]);
        p->env[i] = d;
        return 0;
      }
  return strv_add (&p->env, &p->n_env, kv);
}

/* The container's process as the base, taken over from the saved config
 * (which has no other use for it): everything but args and terminal. */
static int
base_process (struct shim_process *from, struct shim_process *p, int argc, char **argv, shim_error_t *err)
{
  size_t i;
  int j;

  *p = *from;
  memset (from, 0, sizeof (*from));
  for (i = 0; i < p->n_args; i++)
    free (p->args[i]);
  free (p->args);
  p->args = NULL;
  p->n_args = 0;
  p->terminal = false;
  for (j = 0; j < argc; j++)
    if (strv_add (&p->args, &p->n_args, argv[j]) < 0)
      return shim_error_errno (err, "exec");
  return 0;
}

static int
parse_user (const char *s, struct shim_process *p, shim_error_t *err)
{
  uint64_t uid, gid;
  char *colon = strchr (s, ':');
  cleanup_free char *u = strndup (s, colon ? (size_t) (colon - s) : strlen (s));

  if (u == NULL || util_parse_u64 (u, &uid) < 0 || uid > UINT32_MAX
      || (colon && (util_parse_u64 (colon + 1, &gid) < 0 || gid > UINT32_MAX)))
    return shim_error_plain (err, EINVAL, "exec: --user `%s`: UID[:GID], numeric", s);
  p->uid = (uid_t) uid;
  if (colon)
    p->gid = (gid_t) gid;
  return 0;
}

int
cmd_exec (struct global_opts *g, int argc, char **argv, shim_error_t *err)
{
  enum { O_CWD = 256, O_NNP, O_IGNORED, O_IGNORED_ARG, O_IGNORE_PAUSED };
  static const struct option opts[] = {
    { "process", required_argument, NULL, 'p' },
    { "detach", no_argument, NULL, 'd' },
    { "pid-file", required_argument, NULL, 'P' },
    { "tty", no_argument, NULL, 't' },
    { "console-socket", required_argument, NULL, 'c' },
    { "env", required_argument, NULL, 'e' },
    { "cwd", required_argument, NULL, O_CWD },
    { "user", required_argument, NULL, 'u' },
    { "additional-gids", required_argument, NULL, 'g' },
    { "no-new-privs", no_argument, NULL, O_NNP },
    { "ignore-paused", no_argument, NULL, O_IGNORE_PAUSED },
    /* runc's, accepted: shim's exec has no other meaning for them. */
    { "preserve-fds", required_argument, NULL, O_IGNORED_ARG },
    { "process-label", required_argument, NULL, O_IGNORED_ARG },
    { "apparmor", required_argument, NULL, O_IGNORED_ARG },
    { "cap", required_argument, NULL, O_IGNORED_ARG },
    { "cgroup", required_argument, NULL, O_IGNORED_ARG },
    { NULL, 0, NULL, 0 },
  };
  __attribute__ ((cleanup (cleanup_refp))) struct container_ref r = { .dirfd = -1 };
  __attribute__ ((cleanup (cleanup_processp))) struct shim_process proc = { 0 };
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_close int console_fd = -1, sigfd = -1;
  struct container_proc cp = { .pid = -1, .pidfd = -1, .pty_master = -1 };
  struct exec_opts eo = { .console_fd = -1 };
  const char *process_file = NULL, *pid_file = NULL, *console = NULL, *cwd = NULL, *user = NULL;
  char **envs = NULL;
  size_t n_envs = 0, i;
  bool tty = false, nnp = false, ignore_paused = false;
  int c, status = 0, ret;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+p:dtc:e:u:g:", opts, NULL)) != -1)
    switch (c)
      {
      case 'p': process_file = optarg; break;
      case 'd': eo.detach = true; break;
      case 'P': pid_file = optarg; break;
      case 't': tty = true; break;
      case 'c': console = optarg; break;
      case 'e':
        if (strchr (optarg, '=') == NULL)
          return shim_error_plain (err, EINVAL, "exec: --env `%s`: KEY=VALUE", optarg);
        if (strv_add (&envs, &n_envs, optarg) < 0)
          return shim_error_errno (err, "exec");
        break;
      case O_CWD: cwd = optarg; break;
      case 'u': user = optarg; break;
      case O_NNP: nnp = true; break;
      case O_IGNORE_PAUSED: ignore_paused = true; break;
      case 'g': case O_IGNORED_ARG: break;
      default: return shim_error_plain (err, EINVAL, "exec: unknown option `%s`", argv[optind - 1]);
      }
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "exec: a container id is required");
  if (container_ref_open (g, argv[optind], false, &r, err) < 0
      || container_ref_need (&r, "exec in",
                             ST (STATUS_CREATED) | ST (STATUS_RUNNING) | (ignore_paused ? ST (STATUS_PAUSED) : 0),
                             err) < 0
      || lifecycle_saved_config (r.dirfd, &r.st, &cfg, err) < 0)
    return -1;
  eo.id = argv[optind++];
  if (process_file)
    {
      cleanup_free char *json = NULL;
      size_t len;
      if (util_read_file_at (AT_FDCWD, process_file, &json, &len, err) < 0)
        return -1;
      if (shim_process_parse (json, len, &proc, lifecycle_config_warning, NULL, err) < 0)
        return shim_error_prefix (err, "exec: %s", process_file);
    }
  else
    {
      if (optind >= argc)
        return shim_error_plain (err, EINVAL, "exec: nothing to run: give --process FILE or the command");
      if (base_process (&cfg->process, &proc, argc - optind, argv + optind, err) < 0)
        return -1;
      proc.terminal = tty;
    }
  for (i = 0; i < n_envs; i++)
    if (env_set (&proc, envs[i]) < 0)
      return shim_error_errno (err, "exec");
  for (i = 0; i < n_envs; i++)
    free (envs[i]);
  free (envs);
  if (cwd)
    {
      free (proc.cwd);
      proc.cwd = strdup (cwd);
      if (proc.cwd == NULL)
        return shim_error_errno (err, "exec");
    }
  if (user && parse_user (user, &proc, err) < 0)
    return -1;
  if (nnp)
    proc.no_new_privileges = true;
  if (proc.terminal && console)
    {
      console_fd = eo.console_fd = lifecycle_connect_console (console, err);
      if (console_fd < 0)
        return -1;
    }
  else if (proc.terminal && eo.detach)
    return shim_error_plain (err, EINVAL, "exec: --tty with --detach needs --console-socket");
  eo.cgroup_fd = r.cg.dirfd;
  if (!eo.detach && (sigfd = supervise_signals_fd (err)) < 0)
    return -1;
  if (container_exec (cfg, &proc, r.st.pid, &eo, &cp, err) < 0)
    return -1;
  if (pid_file && lifecycle_write_pid_file (pid_file, cp.pid, err) < 0)
    return -1;
  if (eo.detach)
    {
      close (cp.pidfd);
      return 0;
    }
  /* The state dir's lock is not held while the process runs. */
  close (steal_fd (&r.dirfd));
  ret = supervise_wait (&cp, sigfd, NULL, &status, err);
  close (cp.pidfd);
  if (cp.pty_master >= 0)
    close (cp.pty_master);
  return ret < 0 ? -1 : wait_status_to_exit_code (status);
}
