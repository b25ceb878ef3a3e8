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
#include "common/json.h"
#include "common/log.h"
#include "common/util.h"
#include "verdict/verdict.h"

/* The table's usage, and `shim run --help`. */
const char cmd_run_usage[] = "usage: shim run [options] [ID]\n"
                             "       shim run [options] BUNDLE/\n"
                             "\n"
                             "  -b, --bundle DIR               the bundle (default: BUNDLE/, or .)\n"
                             "      --json                     one JSON line on stderr: the verdict, warnings, error\n"
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
  /* --json: the verdict, kept for the one line printed at the end (after
   * the teardown, whose warnings it carries too). */
  struct verdict *v;
};

/* `shim run DIR/`: an argument with a slash, or naming a directory, is the
 * bundle; ids hold no slash. */
static bool
looks_like_bundle (const char *arg)
{
  struct stat st;
  return strchr (arg, '/') != NULL || (stat (arg, &st) == 0 && S_ISDIR (st.st_mode));
}

/* runtime_run_opts.on_verdict: the verdict, as soon as it is known;
 * with --json kept for the line. */
static void
report_verdict (const struct verdict *v, int exit_code, void *opaque)
{
  struct run_cli *o = opaque;

  if (o->json)
    {
      o->v = malloc (sizeof *o->v);
      if (o->v)
        *o->v = *v;
      else
        log_msg (LOG_ERROR, "run --json: no memory to keep the verdict");
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
      case 'j': o->json = true; break;
      case 'U': o->r.c.allow_unenforced = true; break;
      case 'd': o->r.detach = true; break;
      case 'k': o->r.keep = o->r.c.keep_cgroup = true; break;
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

/* `run --json`'s one line: the verdict's fields (none when the run failed
 * before there was one, or with --detach), then "warnings" (every error and
 * warning logged on the way, in order) and "error" (what made the run
 * fail, or null).  The verdict's own object stays as the state's
 * annotation has it: the two fields are the line's only. */
static void
print_line (const struct verdict *v, const char *error)
{
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const char *const *msgs;
  size_t n = log_held (&msgs), len;
  const unsigned char *buf;
  shim_error_t tmp = NULL;
  yajl_gen_status st = yajl_gen_status_ok;

  if (g == NULL)
    return;
  if (v && verdict_gen_fields (g, v, &tmp) < 0)
    {
      /* Said in the line's error instead: nothing else reaches stderr. */
      if (error == NULL)
        error = tmp->msg;
      yajl_gen_clear (g);
      yajl_gen_reset (g, NULL);
      v = NULL;
    }
  if (v == NULL)
    JSON_TRY (st, yajl_gen_map_open (g));
  JSON_TRY (st, json_gen_str (g, "warnings"));
  JSON_TRY (st, yajl_gen_array_open (g));
  for (size_t i = 0; i < n; i++)
    JSON_TRY (st, json_gen_str (g, msgs[i]));
  JSON_TRY (st, yajl_gen_array_close (g));
  JSON_TRY (st, json_gen_str (g, "error"));
  JSON_TRY (st, error ? json_gen_str (g, error) : yajl_gen_null (g));
  JSON_TRY (st, yajl_gen_map_close (g));
  if (st == yajl_gen_status_ok && yajl_gen_get_buf (g, &buf, &len) == yajl_gen_status_ok)
    fprintf (stderr, "%.*s\n", (int) len, (const char *) buf);
  shim_error_release (&tmp);
}

/* --json anywhere among run's options holds stderr from the start, so
 * that an error in an option before it is in the line too. */
static bool
wants_json (int argc, char **argv)
{
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    if (strcmp (argv[i], "--json") == 0)
      return true;
  return false;
}

int
cmd_run (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  struct run_cli o = { .r = { .on_verdict = report_verdict } };
  int exit_code = 1, ret;

  o.r.opaque = &o;
  o.r.c.allow_unenforced = ctx->allow_unenforced;
  o.json = wants_json (argc, argv);
  if (o.json)
    log_stderr_hold ();
  ret = parse_run_opts (argc, argv, &o, err);
  if (ret == 0)
    ret = runtime_run (ctx, &o.r, &exit_code, err) < 0 ? -1 : exit_code;
  if (!o.json || ret == CMD_HELP)
    return ret;
  print_line (o.v, ret < 0 && *err ? (*err)->msg : NULL);
  free (o.v);
  /* Said in the line: main has nothing left to print. */
  shim_error_release (err);
  return ret;
}
