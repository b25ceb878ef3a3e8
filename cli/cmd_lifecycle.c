/* SPDX-License-Identifier: Apache-2.0 */
/* create, start, kill, delete: the runc lifecycle engines drive. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "common/util.h"

const char cmd_create_usage[] = "usage: shim create [options] ID\n"
                                "\n"
                                "  -b, --bundle DIR               the bundle (default: .)\n"
                                "      --pid-file FILE            write init's pid there\n"
                                "      --console-socket SOCK      send the terminal's master there\n"
                                "      --no-pivot                 chroot instead of pivot_root\n"
                                "      --allow-unenforced-limits  create even where a limit is not enforced\n"
                                "      --preserve-fds N           pass fds 3 to 3+N-1 on to the process\n"
                                "      --no-new-keyring           accepted for runc; no effect here\n"
                                "      --no-subreaper             accepted for runc; no effect here\n";
const char cmd_start_usage[] = "usage: shim start ID\n"
                               "\n";
const char cmd_kill_usage[] = "usage: shim kill [options] ID [SIGNAL]\n"
                              "\n"
                              "SIGNAL: a name or number: KILL, SIGKILL, 9, RTMIN+3... (default: TERM)\n"
                              "\n"
                              "  -a, --all                      signal every process of the container\n";
const char cmd_delete_usage[] = "usage: shim delete [options] ID\n"
                                "\n"
                                "  -f, --force                    kill the container first if it runs\n";

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
cmd_create (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "pid-file", required_argument, NULL, 'p' },
    { "console-socket", required_argument, NULL, 'c' },
    { "no-pivot", no_argument, NULL, 'P' },
    /* runc's, accepted: shim makes no session keyring and is no subreaper
     * anyway. */
    { "no-new-keyring", no_argument, NULL, 'K' },
    { "no-subreaper", no_argument, NULL, 'K' },
    { "preserve-fds", required_argument, NULL, 'F' },
    { "allow-unenforced-limits", no_argument, NULL, 'U' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  struct runtime_create_opts o = { .bundle = ".", .allow_unenforced = ctx->allow_unenforced };
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+b:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': o.bundle = optarg; break;
      case 'p': o.pid_file = optarg; break;
      case 'c': o.console_socket = optarg; break;
      case 'P': o.no_pivot = true; break;
      case 'U': o.allow_unenforced = true; break;
      case 'K': break;
      case 'F':
        if (cmd_parse_preserve_fds ("create", optarg, &o.preserve_fds, err) < 0)
          return -1;
        break;
      case 'h': return CMD_HELP;
      default: return unknown_option ("create", argv, err);
      }
  if (cmd_check_preserved_fds ("create", o.preserve_fds, err) < 0 || one_id ("create", argc, argv, &o.id, err) < 0)
    return -1;
  return runtime_create (ctx, &o, err);
}

int
cmd_start (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  const char *id = NULL;
  int ret = cmd_help_only ("start", argc, argv, err);

  if (ret != 0)
    return ret;
  if (one_id ("start", argc, argv, &id, err) < 0)
    return -1;
  return runtime_start (ctx, id, err);
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

/* "KILL", "SIGKILL", "sigkill", "9", "RTMIN+3": the signal number, or -1. */
static int
parse_signal (const char *s, int *out)
{
  int64_t n;
  size_t i;

  if (util_parse_i64 (s, &n) == 0)
    {
      /* 0 is runc's liveness check: nothing is sent, only whether init is
       * there to take a signal is told. */
      if (n < 0 || n > SIGRTMAX)
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

int
cmd_kill (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "all", no_argument, NULL, 'a' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  bool all = false;
  const char *id = NULL;
  int c, sig = SIGTERM;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+ah", opts, NULL)) != -1)
    switch (c)
      {
      case 'a': all = true; break;
      case 'h': return CMD_HELP;
      default: return unknown_option ("kill", argv, err);
      }
  if (one_id ("kill", argc, argv, &id, err) < 0)
    return -1;
  if (optind < argc && parse_signal (argv[optind++], &sig) < 0)
    return shim_error_plain (err, EINVAL, "kill: `%s`: not a signal", argv[optind - 1]);
  if (optind < argc)
    return shim_error_plain (err, EINVAL, "kill: unexpected argument `%s`", argv[optind]);
  return runtime_kill (ctx, id, sig, all, err);
}

int
cmd_delete (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "force", no_argument, NULL, 'f' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  bool force = false;
  const char *id = NULL;
  int c;

  opterr = 0;
  /* Options anywhere, as runc's urfave/cli takes `delete ID --force`; a
   * second id is refused, as runc does, rather than silently ignored. */
  while ((c = getopt_long (argc, argv, "fh", opts, NULL)) != -1)
    switch (c)
      {
      case 'f': force = true; break;
      case 'h': return CMD_HELP;
      default: return unknown_option ("delete", argv, err);
      }
  if (one_id ("delete", argc, argv, &id, err) < 0)
    return -1;
  if (optind < argc)
    return shim_error_plain (err, EINVAL, "delete: unexpected argument `%s`: it takes exactly one container id",
                             argv[optind]);
  return runtime_delete (ctx, id, force, err);
}
