/* SPDX-License-Identifier: Apache-2.0 */
/* main(): global options, then one command from the table.  The only place
 * that prints an error. */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "common/version.h"
#include "history/history.h"
#include "runtime/runtime.h"
#include "runtime/security.h"

struct cli_command
{
  const char *name;
  const char *summary; /* one line, for `shim --help` */
  const char *usage;
  cli_handler fn;
  /* Starts a process in a container: re-execs from a copy or a mount of
   * the binary that cannot be written (security_reexec_protected). */
  bool sealed;
};

static const struct cli_command commands[] = {
  { "run", "create and run a container (in the foreground, or --detach)", cmd_run_usage, cmd_run, true },
  { "create", "create a container; its process waits for `start`", cmd_create_usage, cmd_create, true },
  { "start", "start the process of a created container", cmd_start_usage, cmd_start, false },
  { "state", "print a container's state (the verdict, once stopped)", cmd_state_usage, cmd_state, false },
  { "kill", "send a signal to a container's init (--all: to every process)", cmd_kill_usage, cmd_kill, false },
  { "delete", "remove a stopped container (--force: kill it first)", cmd_delete_usage, cmd_delete, false },
  { "exec", "run another process in a container", cmd_exec_usage, cmd_exec, true },
  { "list", "list the containers", cmd_list_usage, cmd_list, false },
  { "ps", "list a container's processes", cmd_ps_usage, cmd_ps, false },
  { "events", "stream a container's oom events and stats (--stats: once)", cmd_events_usage, cmd_events, false },
  { "pause", "freeze every process of a container", cmd_pause_usage, cmd_pause, false },
  { "resume", "thaw a paused container", cmd_resume_usage, cmd_resume, false },
  { "update", "change a container's resources", cmd_update_usage, cmd_update, false },
  { "verdicts", "list the verdicts kept after the containers were deleted", cmd_verdicts_usage, cmd_verdicts,
    false },
  { "features", "print what this runtime implements (JSON)", cmd_features_usage, cmd_features, false },
  { "spec", "write a default config.json", cmd_spec_usage, cmd_spec, false },
  /* runc's names, so that a caller gets a clear refusal, not "unknown". */
  { "checkpoint", "not supported by shim (runc's: checkpoint a running container)", cmd_checkpoint_usage,
    cmd_unsupported, false },
  { "restore", "not supported by shim (runc's: restore a container from a checkpoint)", cmd_restore_usage,
    cmd_unsupported, false },
};

#define N_COMMANDS (sizeof (commands) / sizeof (commands[0]))

static void
usage (FILE *f)
{
  size_t i;
  fprintf (f, "usage: shim [global options] COMMAND [options] [ARGS]\n"
              "       shim run BUNDLE/           run the bundle in the foreground\n\ncommands:\n");
  for (i = 0; i < N_COMMANDS; i++)
    fprintf (f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (f, "\nglobal options:\n"
              "      --root DIR                 where containers' state lives (default: %s;\n"
              "                                 $XDG_RUNTIME_DIR/shim when not root)\n"
              "      --log FILE                 write the log there instead of stderr\n"
              "      --log-format text|json     the log's format (default: text)\n"
              "      --debug                    log debug lines too\n"
              "      --systemd-cgroup           read cgroupsPath as slice:prefix:name\n"
              "      --history-dir DIR          the verdict history (default: %s, or\n"
              "                                 $SHIM_HISTORY_DIR; \"\": none)\n"
              "      --metrics-dir DIR          write death counters to DIR/" HISTORY_METRICS_FILE "\n"
              "                                 (default: $SHIM_METRICS_DIR, else none)\n"
              "      --allow-unenforced-limits  as create's and run's option (for podman's --runtime-flag)\n"
              "      --criu PATH, --rootless B  accepted for runc; no effect here\n"
              "  -v, --version                  print the version\n"
              "  -h, --help                     print this help\n"
              "\n`shim help COMMAND` or `shim COMMAND --help`: a command's options.\n",
           RUNTIME_DEFAULT_ROOT, HISTORY_DEFAULT_DIR);
}

/* The command NAME, or NULL once the error is told (WHAT: "unknown
 * command", "no help topic for"), with where the list of commands is. */
static const struct cli_command *
find_command (const char *name, const char *what)
{
  size_t i;
  for (i = 0; i < N_COMMANDS; i++)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  log_msg (LOG_ERROR, "%s `%s`", what, name);
  fputs ("shim: `shim help` lists the commands\n", stderr);
  return NULL;
}

/* `shim help CMD`, `shim CMD --help`: what the command does, its usage and
 * its options. */
static void
command_help (const struct cli_command *cmd)
{
  printf ("shim %s: %s\n\n%s", cmd->name, cmd->summary, cmd->usage);
  printf ("  %-30s %s\n", "-h, --help", "print this help");
}

/* `shim help [CMD]`. */
static int
help (int argc, char **argv)
{
  const struct cli_command *cmd;

  if (argc < 2 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return 0;
    }
  cmd = find_command (argv[1], "no help topic for");
  if (cmd == NULL)
    return 1;
  command_help (cmd);
  return 0;
}

/* SIGPIPE's handler: none, so that a write to a closed pipe fails with
 * EPIPE instead of killing the runtime. */
static void
on_sigpipe (int sig)
{
  (void) sig;
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
    /* podman's `--runtime-flag allow-unenforced-limits` puts it here. */
    { "allow-unenforced-limits", no_argument, NULL, 'U' },
    { "history-dir", required_argument, NULL, 'H' },
    { "metrics-dir", required_argument, NULL, 'M' },
    { "version", no_argument, NULL, 'v' },
    /* runc's, accepted as engines pass them: no checkpointing here, and
     * rootless mode is decided by the config's user namespace. */
    { "criu", required_argument, NULL, 'I' },
    { "rootless", required_argument, NULL, 'I' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct runtime_ctx ctx = { .root = runtime_default_root () };
  struct history_config history;
  const struct cli_command *cmd;
  const char *log = NULL, *log_format = "text";
  bool debug = false;
  shim_error_t err = NULL;
  struct sigaction pipe_sa = { .sa_handler = on_sigpipe, .sa_flags = SA_RESTART };
  int c, ret;

  /* `shim run ... 2>&1 | head -1`: a reader gone must never cost the
   * container's teardown; what is printed then is lost, nothing else.  A
   * handler rather than SIG_IGN: execve resets it, so neither the
   * container, nor a hook, nor ps(1) inherits an ignored SIGPIPE. */
  sigemptyset (&pipe_sa.sa_mask);
  sigaction (SIGPIPE, &pipe_sa, NULL);
  history_config_init (&history);
  ctx.history = &history;
  /* '+': stop at the command, whose own options follow it. */
  while ((c = getopt_long (argc, argv, "+hv", opts, NULL)) != -1)
    switch (c)
      {
      case 'r': ctx.root = optarg; break;
      case 'l': log = optarg; break;
      case 'f': log_format = optarg; break;
      case 'd': debug = true; break;
      case 's': ctx.systemd_cgroup = true; break;
      case 'U': ctx.allow_unenforced = true; break;
      case 'H':
        history.dir = *optarg ? optarg : NULL;
        history.dir_why = "--history-dir is empty";
        break;
      case 'M': history.metrics_dir = *optarg ? optarg : NULL; break;
      case 'I': break;
      case 'v':
        /* runc's three lines, which scripts parse. */
        printf ("shim version %s\ncommit: %s\nspec: %s\n", SHIM_VERSION, SHIM_COMMIT, SHIM_SPEC_VERSION);
        return 0;
      case 'h':
        usage (stdout);
        return 0;
      default:
        usage (stderr);
        return 1;
      }
  if (log_init ("shim", log, log_format, debug, &err) < 0)
    {
      log_error_release (&err);
      return 1;
    }
  if (optind >= argc)
    {
      usage (stderr);
      return 1;
    }
  /* "h" is runc's alias. */
  if (strcmp (argv[optind], "help") == 0 || strcmp (argv[optind], "h") == 0)
    return help (argc - optind, argv + optind);
  cmd = find_command (argv[optind], "unknown command");
  if (cmd == NULL)
    return 1;
  /* Before anything else happens: the re-exec starts over with the same
   * arguments. */
  if (cmd->sealed && security_reexec_protected (argv_all, &err) < 0)
    {
      log_error_release (&err);
      return 1;
    }
  /* The command's getopt starts over on its own argv. */
  argc -= optind;
  argv += optind;
  optind = 0;
  ret = cmd->fn (&ctx, argc, argv, &err);
  if (ret == CMD_HELP)
    {
      command_help (cmd);
      return 0;
    }
  if (ret < 0)
    {
      log_error_release (&err);
      return ret == CMD_FAILED_255 ? 255 : 1;
    }
  return ret;
}
