/* SPDX-License-Identifier: Apache-2.0 */
/* exec: another process in a running container.  The process is the one
 * of --process FILE, or the container's own (env, cwd, user, rlimits,
 * noNewPrivileges from the config saved at create) with the args, env,
 * cwd and user given on the command line, as runc does. */
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/fault.h"
#include "common/util.h"
#include "runtime/container.h"
#include "runtime/container_ref_internal.h"
#include "runtime/lifecycle_internal.h"
#include "runtime/process_internal.h"
#include "runtime/supervise.h"

static void
cleanup_processp (struct shim_process *p)
{
  config_process_free (p);
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
base_process (struct shim_process *from, struct shim_process *p, char *const *args, size_t n_args,
              shim_error_t *err)
{
  size_t i;

  *p = *from;
  memset (from, 0, sizeof (*from));
  for (i = 0; i < p->n_args; i++)
    free (p->args[i]);
  free (p->args);
  p->args = NULL;
  p->n_args = 0;
  p->terminal = false;
  for (i = 0; i < n_args; i++)
    if (strv_add (&p->args, &p->n_args, args[i]) < 0)
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

/* The process to run: --process FILE or the container's, with the
 * command line's changes. */
static int
make_process (const struct runtime_exec_opts *o, struct shim_config *cfg, struct shim_process *proc,
              shim_error_t *err)
{
  size_t i;

  if (o->process_file)
    {
      cleanup_free char *json = NULL;
      size_t len;
      if (util_read_file_at (AT_FDCWD, o->process_file, &json, &len, err) < 0)
        return -1;
      if (config_process_parse (json, len, proc, lifecycle_config_warning, NULL, err) < 0)
        return shim_error_prefix (err, "exec: %s", o->process_file);
    }
  else
    {
      if (o->n_args == 0)
        return shim_error_plain (err, EINVAL, "exec: nothing to run: give --process FILE or the command");
      if (base_process (&cfg->process, proc, o->args, o->n_args, err) < 0)
        return -1;
      proc->terminal = o->tty;
    }
  for (i = 0; i < o->n_env; i++)
    if (env_set (proc, o->env[i]) < 0)
      return shim_error_errno (err, "exec");
  if (o->cwd)
    {
      free (proc->cwd);
      proc->cwd = strdup (o->cwd);
      if (proc->cwd == NULL)
        return shim_error_errno (err, "exec");
    }
  if (o->user && parse_user (o->user, proc, err) < 0)
    return -1;
  if (o->n_additional_gids > 0)
    {
      gid_t *g = realloc (proc->additional_gids, (proc->n_additional_gids + o->n_additional_gids) * sizeof (gid_t));
      if (g == NULL)
        return shim_error_errno (err, "exec");
      memcpy (g + proc->n_additional_gids, o->additional_gids, o->n_additional_gids * sizeof (gid_t));
      proc->additional_gids = g;
      proc->n_additional_gids += o->n_additional_gids;
    }
  proc->preserve_fds = o->preserve_fds;
  if (o->no_new_privs)
    proc->no_new_privileges = true;
  return 0;
}

int
runtime_exec (const struct runtime_ctx *ctx, const struct runtime_exec_opts *o, int *exit_code,
              shim_error_t *err)
{
  cleanup_container_ref struct container_ref r = CONTAINER_REF_INIT;
  __attribute__ ((cleanup (cleanup_processp))) struct shim_process proc = { 0 };
  cleanup_config struct shim_config *cfg = NULL;
  cleanup_close int console_fd = -1, sigfd = -1;
  __attribute__ ((cleanup (cgroup_release))) struct cgroup sub = { .dirfd = -1, .mountfd = -1 };
  struct container_proc cp = { .pid = -1, .pidfd = -1, .pty_master = -1 };
  struct exec_opts eo = { .console_fd = -1, .detach = o->detach, .id = o->id, .sigfd = -1 };
  int status = 0, ret;

  *exit_code = 0;
  if (container_ref_open (ctx->root, o->id, false, &r, err) < 0)
    return -1;
  /* runc's words: scripts and engines look for the flag that overrides it. */
  if (r.status == STATUS_PAUSED && !o->ignore_paused)
    return shim_error_plain (err, EINVAL,
                             "cannot exec in container `%s`: it is paused (use --ignore-paused to override)", o->id);
  if (container_ref_need (&r, "exec in",
                             ST (STATUS_CREATED) | ST (STATUS_RUNNING) | (o->ignore_paused ? ST (STATUS_PAUSED) : 0),
                             err) < 0
      || lifecycle_saved_config (r.dirfd, &r.st, true, &cfg, err) < 0)
    return -1;
  if (make_process (o, cfg, &proc, err) < 0)
    return -1;
  if (proc.terminal && o->console_socket)
    {
      console_fd = eo.console_fd = lifecycle_connect_console (o->console_socket, err);
      if (console_fd < 0)
        return -1;
    }
  else if (proc.terminal && eo.detach)
    return shim_error_plain (err, EINVAL, "exec: --tty with --detach needs --console-socket");
  else if (proc.terminal && supervise_need_terminal (o->tty ? "exec --tty" : "process.terminal", err) < 0)
    return -1;
  eo.cgroup_fd = cgroup_clone_fd (&r.cg);
  eo.cgroup = &r.cg;
  /* --cgroup: the container's cgroup with sub-cgroups in place of its own
   * directories, joined the same way (the clone, then the v1 hierarchies). */
  if (o->n_cgroups > 0)
    {
      if (cgroup_sub_open (&r.cg, o->cgroups, o->n_cgroups, &sub, err) < 0)
        return shim_error_prefix (err, "exec: --cgroup");
      eo.cgroup_fd = cgroup_clone_fd (&sub);
      eo.cgroup = &sub;
    }
  if (!eo.detach && (sigfd = supervise_signals_fd (err)) < 0)
    return -1;
  eo.sigfd = sigfd;
  /* container_exec closes the lock right before the clone. */
  eo.lock_fd = &r.dirfd;
  fault_point ("exec:before-spawn");
  if (container_exec (cfg, &proc, r.st.pid, &eo, &cp, err) < 0)
    return -1;
  fault_point ("exec:after-spawn");
  /* Without its pid file the caller cannot know the process: it must not
   * be left running (nor its pidfd and pty open). */
  if (o->pid_file && lifecycle_write_pid_file (o->pid_file, cp.pid, err) < 0)
    {
      process_reap_failed (cp.pidfd, &cp.pty_master);
      return -1;
    }
  if (eo.detach)
    {
      close (cp.pidfd);
      return 0;
    }
  ret = supervise_wait (&cp, sigfd, NULL, &status, err);
  close (cp.pidfd);
  if (cp.pty_master >= 0)
    close (cp.pty_master);
  if (ret < 0)
    return -1;
  *exit_code = supervise_exit_code (status);
  return 0;
}
