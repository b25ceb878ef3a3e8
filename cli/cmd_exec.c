/* SPDX-License-Identifier: Apache-2.0 */
/* exec: another process in a running container (runtime/exec.c says which
 * process). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/util.h"

const char cmd_exec_usage[] = "usage: shim exec [options] ID COMMAND [ARG]...\n"
                              "       shim exec [options] --process FILE ID\n"
                              "\n"
                              "  -p, --process FILE             the process, as config.json's\n"
                              "  -d, --detach                   start it and return\n"
                              "      --pid-file FILE            write the process' pid there\n"
                              "  -t, --tty                      give it a terminal\n"
                              "  -c, --console-socket SOCK      send the terminal's master there\n"
                              "  -e, --env KEY=VALUE            set a variable (repeatable)\n"
                              "      --cwd DIR                  the working directory\n"
                              "  -u, --user UID[:GID]           run as this user\n"
                              "      --no-new-privs             set no_new_privs\n"
                              "      --ignore-paused            exec even if the container is paused\n"
                              "  -g, --additional-gids GID      add a supplementary group (repeatable)\n"
                              "      --preserve-fds N           pass fds 3 to 3+N-1 on to the process\n"
                              "      --process-label LABEL      accepted for runc; no effect here\n"
                              "      --apparmor PROFILE         accepted for runc; no effect here\n"
                              "      --cap CAP                  accepted for runc; no effect here\n"
                              "      --cgroup [CTRL:]PATH       run in this sub-cgroup of the container's: in every\n"
                              "                                 hierarchy, or (CTRL[,CTRL]:, repeatable) in those\n"
                              "                                 cgroup v1 hierarchies\n";

static void
cleanup_envp (char ***v)
{
  free (*v);
}

static void
cleanup_gidsp (gid_t **v)
{
  free (*v);
}

/* A repeatable option's value, appended to *V (the strings are argv's). */
static int
add_arg (char *arg, char ***v, size_t *n, shim_error_t *err)
{
  char **nv = realloc (*v, (*n + 1) * sizeof (char *));
  if (nv == NULL)
    return shim_error_errno (err, "exec");
  *v = nv;
  nv[(*n)++] = arg;
  return 0;
}

/* -g GID, repeatable, numeric as runc's. */
static int
add_gid (const char *s, gid_t **gids, size_t *n, shim_error_t *err)
{
  uint64_t v;
  gid_t *nv;

  if (util_parse_u64 (s, &v) < 0 || v >= UINT32_MAX)
    return shim_error_plain (err, EINVAL, "exec: --additional-gids `%s`: a numeric group id", s);
  nv = realloc (*gids, (*n + 1) * sizeof (gid_t));
  if (nv == NULL)
    return shim_error_errno (err, "exec");
  *gids = nv;
  nv[(*n)++] = (gid_t) v;
  return 0;
}

int
cmd_parse_preserve_fds (const char *cmd, const char *arg, unsigned int *n, shim_error_t *err)
{
  uint64_t v;

  if (util_parse_u64 (arg, &v) < 0 || v > 1024)
    return shim_error_plain (err, EINVAL, "%s: --preserve-fds `%s`: a number of fds", cmd, arg);
  *n = (unsigned int) v;
  return 0;
}

/* Open, or the process would silently get none of them. */
int
cmd_check_preserved_fds (const char *cmd, unsigned int n, shim_error_t *err)
{
  unsigned int i;

  for (i = 0; i < n; i++)
    if (fcntl ((int) (3 + i), F_GETFD) < 0)
      return shim_error_errno (err, "%s: --preserve-fds %u: fd %u", cmd, n, 3 + i);
  return 0;
}

int
cmd_exec (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  enum { O_CWD = 256, O_NNP, O_IGNORED, O_IGNORED_ARG, O_IGNORE_PAUSED, O_PRESERVE_FDS, O_CGROUP };
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
    { "preserve-fds", required_argument, NULL, O_PRESERVE_FDS },
    { "cgroup", required_argument, NULL, O_CGROUP },
    /* runc's, accepted: shim's exec has no other meaning for them. */
    { "process-label", required_argument, NULL, O_IGNORED_ARG },
    { "apparmor", required_argument, NULL, O_IGNORED_ARG },
    { "cap", required_argument, NULL, O_IGNORED_ARG },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  __attribute__ ((cleanup (cleanup_envp))) char **envs = NULL;
  __attribute__ ((cleanup (cleanup_gidsp))) gid_t *gids = NULL;
  __attribute__ ((cleanup (cleanup_envp))) char **cgroups = NULL;
  struct runtime_exec_opts o = { 0 };
  int c, exit_code;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+p:dtc:e:u:g:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'p': o.process_file = optarg; break;
      case 'd': o.detach = true; break;
      case 'P': o.pid_file = optarg; break;
      case 't': o.tty = true; break;
      case 'c': o.console_socket = optarg; break;
      case 'e':
        if (strchr (optarg, '=') == NULL)
          return shim_error_plain (err, EINVAL, "exec: --env `%s`: KEY=VALUE", optarg);
        if (add_arg (optarg, &envs, &o.n_env, err) < 0)
          return -1;
        o.env = envs;
        break;
      case O_CWD: o.cwd = optarg; break;
      case 'u': o.user = optarg; break;
      case O_NNP: o.no_new_privs = true; break;
      case O_IGNORE_PAUSED: o.ignore_paused = true; break;
      case 'g':
        if (add_gid (optarg, &gids, &o.n_additional_gids, err) < 0)
          return -1;
        o.additional_gids = gids;
        break;
      case O_PRESERVE_FDS:
        if (cmd_parse_preserve_fds ("exec", optarg, &o.preserve_fds, err) < 0)
          return -1;
        break;
      case O_CGROUP:
        if (add_arg (optarg, &cgroups, &o.n_cgroups, err) < 0)
          return -1;
        o.cgroups = cgroups;
        break;
      case O_IGNORED_ARG: break;
      case 'h': return CMD_HELP;
      default: return shim_error_plain (err, EINVAL, "exec: unknown option `%s`", argv[optind - 1]);
      }
  if (cmd_check_preserved_fds ("exec", o.preserve_fds, err) < 0)
    return -1;
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "exec: a container id is required");
  o.id = argv[optind++];
  o.args = argv + optind;
  o.n_args = (size_t) (argc - optind);
  /* runc's: an exec that fails (refused, no such binary) exits 255, which
   * tells it from the process's own exit codes. */
  if (runtime_exec (ctx, &o, &exit_code, err) < 0)
    return CMD_FAILED_255;
  return exit_code;
}
