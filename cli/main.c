/* SPDX-License-Identifier: Apache-2.0 */
/* main(): global options, then one command from the table.  The only place
 * that prints an error. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/version.h"
#include "common/log.h"
#include "runtime/security.h"
#include "runtime/state.h"


static const struct
{
  const char *name;
  int (*fn) (struct global_opts *, int, char **, shim_error_t *);
  const char *help;
  /* Starts a process in a container: runs from a sealed copy of the
   * binary (security_run_sealed_copy). */
  bool sealed;
} commands[] = {
  { "run", cmd_run, "create and run a container (in the foreground, or --detach)", true },
  { "create", cmd_create, "create a container; its process waits for `start`", true },
  { "start", cmd_start, "start the process of a created container", false },
  { "state", cmd_state, "print a container's state (the verdict, once stopped)", false },
  { "kill", cmd_kill, "send a signal to a container's init (--all: to every process)", false },
  { "delete", cmd_delete, "remove a stopped container (--force: kill it first)", false },
  { "exec", cmd_exec, "run another process in a container", true },
  { "list", cmd_list, "list the containers", false },
  { "ps", cmd_ps, "list a container's processes", false },
  { "events", cmd_events, "stream a container's oom events and stats (--stats: once)", false },
  { "pause", cmd_pause, "freeze every process of a container", false },
  { "resume", cmd_resume, "thaw a paused container", false },
  { "update", cmd_update, "change a container's resources", false },
  { "features", cmd_features, "print what this runtime implements (JSON)", false },
  { "spec", cmd_spec, "write a default config.json", false },
};

static void
usage (FILE *f)
{
  size_t i;
  fprintf (f, "usage: shim [--root DIR] [--log FILE] [--log-format text|json] [--debug] COMMAND [ARGS]\n"
              "       shim run BUNDLE/           run the bundle in the foreground\n\ncommands:\n");
  for (i = 0; i < sizeof (commands) / sizeof (commands[0]); i++)
    fprintf (f, "  %-10s %s\n", commands[i].name, commands[i].help);
}

int
main (int argc, char **argv)
{
  char **argv_all = argv;
  static const struct option opts[] = {
    { "root", required_argument, NULL, 'r' },
    { "log", required_argument, NULL, 'l' },
    { "log-format", required_argument, NULL, 'f' },
    { "debug", no_argument, NULL, 'd' },
    { "systemd-cgroup", no_argument, NULL, 's' },
    { "version", no_argument, NULL, 'v' },
    /* runc's, accepted as engines pass them: no checkpointing here, and
     * rootless mode is decided by the config's user namespace. */
    { "criu", required_argument, NULL, 'I' },
    { "rootless", required_argument, NULL, 'I' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct global_opts g = { .root = SHIM_DEFAULT_ROOT, .log_format = "text" };
  shim_error_t err = NULL;
  size_t i;
  int c, ret;

  /* '+': stop at the command, whose own options follow it. */
  while ((c = getopt_long (argc, argv, "+hv", opts, NULL)) != -1)
    switch (c)
      {
      case 'r': g.root = optarg; break;
      case 'l': g.log = optarg; break;
      case 'f': g.log_format = optarg; break;
      case 'd': g.debug = true; break;
      case 's': g.systemd_cgroup = true; break;
      case 'I': break;
      case 'v':
        printf ("shim version %s\nspec: %s\n", SHIM_VERSION, SHIM_SPEC_VERSION);
        return 0;
      case 'h':
        usage (stdout);
        return 0;
      default:
        usage (stderr);
        return 1;
      }
  if (log_init ("shim", g.log, g.log_format, g.debug, &err) < 0)
    {
      log_error_release (&err);
      return 1;
    }
  if (optind >= argc)
    {
      usage (stderr);
      return 1;
    }
  for (i = 0; i < sizeof (commands) / sizeof (commands[0]); i++)
    if (strcmp (commands[i].name, argv[optind]) == 0)
      break;
  if (i == sizeof (commands) / sizeof (commands[0]))
    {
      log_msg (LOG_ERROR, "unknown command `%s`", argv[optind]);
      usage (stderr);
      return 1;
    }
  /* Before anything else happens: the re-exec starts over with the same
   * arguments. */
  if (commands[i].sealed && security_run_sealed_copy (argv_all, &err) < 0)
    {
      log_error_release (&err);
      return 1;
    }
  /* The command's getopt starts over on its own argv. */
  argc -= optind;
  argv += optind;
  optind = 0;
  ret = commands[i].fn (&g, argc, argv, &err);
  if (ret < 0)
    {
      log_error_release (&err);
      return 1;
    }
  return ret;
}
