/* SPDX-License-Identifier: Apache-2.0 */
/* `shim run`: create the container, wait for it in the foreground, pass its
 * exit code through; the verdict is told on stderr. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "common/log.h"
#include "common/util.h"
#include "verdict/verdict.h"

/* The table's usage, and `shim run --help`. */
const char cmd_run_usage[] = "usage: shim run [options] [ID]\n"
                             "       shim run [options] BUNDLE/\n"
                             "\n"
                             "  -b, --bundle DIR               the bundle (default: BUNDLE/, or .)\n"
                             "      --json                     print the verdict as one JSON line on stderr\n"
                             "      --memory SIZE              memory limit for this run (e.g. 512M)\n"
                             "      --allow-unenforced-limits  run even where a limit cannot be enforced\n"
                             "  -d, --detach                   start it and return; `shim delete` removes it\n"
                             "      --keep                     keep the stopped container for `shim state`\n"
                             "      --pid-file FILE            write init's pid there\n"
                             "      --console-socket SOCK      send the terminal's master there\n"
                             "      --no-pivot                 chroot instead of pivot_root\n"
                             "      --preserve-fds N           pass fds 3 to 3+N-1 on to the process\n"
                             "      --no-new-keyring           accepted for runc; no effect here\n"
                             "      --no-subreaper             accepted for runc; no effect here\n";

struct run_cli
{
  struct runtime_run_opts r;
  bool json;
};

/* `shim run DIR/`: an argument with a slash, or naming a directory, is the
 * bundle; ids hold no slash. */
static bool
looks_like_bundle (const char *arg)
{
  struct stat st;
  return strchr (arg, '/') != NULL || (stat (arg, &st) == 0 && S_ISDIR (st.st_mode));
}

/* runtime_run_opts.on_verdict: the verdict, as soon as it is known. */
static void
report_verdict (const struct verdict *v, int exit_code, void *opaque)
{
  bool json = *(const bool *) opaque;

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
parse_run_opts (int argc, char **argv, struct run_cli *o, shim_error_t *err)
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
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+b:dh", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': o->r.c.bundle = optarg; break;
      case 'P': o->r.c.no_pivot = true; break;
      case 'j':
        /* From here on, so that an error in the options is JSON too. */
        o->json = true;
        log_stderr_json ();
        break;
      case 'U': o->r.c.allow_unenforced = true; break;
      case 'd': o->r.detach = true; break;
      case 'k': o->r.keep = true; break;
      case 'p': o->r.c.pid_file = optarg; break;
      case 'c': o->r.c.console_socket = optarg; break;
      case 'K': break;
      case 'F':
        if (cmd_parse_preserve_fds ("run", optarg, &o->r.c.preserve_fds, err) < 0)
          return -1;
        break;
      case 'm':
        if (util_parse_size (optarg, &o->r.c.memory) < 0)
          return shim_error_plain (err, EINVAL, "run: --memory `%s`: not a size (e.g. 512M, 2G)", optarg);
        o->r.c.has_memory = true;
        break;
      case 'h': return CMD_HELP;
      default:
        return shim_error_plain (err, EINVAL, "run: unknown option `%s` (see `shim run --help`)",
                                 argv[optind - 1]);
      }
  if (cmd_check_preserved_fds ("run", o->r.c.preserve_fds, err) < 0)
    return -1;
  if (optind < argc - 1)
    return shim_error_plain (err, EINVAL, "run: unexpected argument `%s`", argv[optind + 1]);
  if (optind == argc - 1)
    {
      if (o->r.c.bundle == NULL && looks_like_bundle (argv[optind]))
        o->r.c.bundle = argv[optind];
      else
        o->r.c.id = argv[optind];
    }
  if (o->r.c.bundle == NULL)
    o->r.c.bundle = ".";
  return 0;
}

int
cmd_run (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  struct run_cli o = { .r = { .on_verdict = report_verdict } };
  int exit_code, ret;

  o.r.opaque = &o.json;
  o.r.c.allow_unenforced = ctx->allow_unenforced;
  ret = parse_run_opts (argc, argv, &o, err);
  if (ret != 0)
    return ret;
  if (runtime_run (ctx, &o.r, &exit_code, err) < 0)
    return -1;
  return exit_code;
}
