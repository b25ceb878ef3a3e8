/* SPDX-License-Identifier: Apache-2.0 */
/* state, list, ps, events: reading a container without changing it. */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/util.h"

const char cmd_state_usage[] = "usage: shim state ID\n"
                               "\n";
const char cmd_list_usage[] = "usage: shim list [options]\n"
                              "\n"
                              "  -f, --format table|json        how to print (default: table)\n"
                              "  -q, --quiet                    print the ids only\n";
const char cmd_ps_usage[] = "usage: shim ps [options] ID [PS_ARGS...]\n"
                            "       ps(1)'s table (ps PS_ARGS, or ps -ef), the container's lines only\n"
                            "\n"
                            "  -f, --format table|json        how to print (default: table)\n";
const char cmd_events_usage[] = "usage: shim events [options] ID\n"
                                "\n"
                                "      --stats                    print the stats once and exit\n"
                                "      --interval DURATION        time between stats (default: 5s)\n";

int
cmd_state (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  cleanup_free char *json = NULL;
  int ret = cmd_help_only ("state", argc, argv, err);

  if (ret != 0)
    return ret;
  if (argc - optind != 1)
    return shim_error_plain (err, EINVAL, "state: exactly one container id is required");
  if (runtime_state (ctx, argv[optind], &json, err) < 0)
    return -1;
  printf ("%s\n", json);
  return 0;
}

/* The owner column as runc's: the user's name, or #UID. */
static void
owner_name (uid_t uid, char *buf, size_t size)
{
  struct passwd pw, *res = NULL;
  char tmp[1024];

  if (getpwuid_r (uid, &pw, tmp, sizeof (tmp), &res) == 0 && res != NULL)
    snprintf (buf, size, "%s", res->pw_name);
  else
    snprintf (buf, size, "#%u", (unsigned) uid);
}

#define LIST_COLUMNS 6

/* One row of the table: each column padded to its width, the last not. */
static void
print_row (const char *const *v, const size_t *width)
{
  size_t c;
  for (c = 0; c + 1 < LIST_COLUMNS; c++)
    printf ("%-*s", (int) width[c], v[c]);
  printf ("%s\n", v[c]);
}

/* The values of E's row; p and owner are the caller's buffers. */
static void
row_values (const struct runtime_list_entry *e, char (*p)[16], char (*owner)[64], const char **v)
{
  snprintf (*p, sizeof (*p), "%d", (int) e->pid);
  owner_name (e->owner, *owner, sizeof (*owner));
  v[0] = e->id;
  v[1] = *p;
  v[2] = e->status;
  v[3] = e->bundle;
  v[4] = e->created;
  v[5] = *owner;
}

/* runc's table (Go's tabwriter: columns at least 12 wide, 3 spaces
 * between), aligned whatever the length of an id or a bundle. */
static void
print_list_table (const struct runtime_list_entry *e, size_t n)
{
  static const char *const header[LIST_COLUMNS] = { "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER" };
  const char *v[LIST_COLUMNS];
  size_t width[LIST_COLUMNS], i, c;
  char p[16], owner[64];

  for (c = 0; c < LIST_COLUMNS; c++)
    width[c] = strlen (header[c]);
  for (i = 0; i < n; i++)
    {
      row_values (&e[i], &p, &owner, v);
      for (c = 0; c < LIST_COLUMNS; c++)
        if (strlen (v[c]) > width[c])
          width[c] = strlen (v[c]);
    }
  for (c = 0; c < LIST_COLUMNS; c++)
    width[c] = width[c] + 3 < 12 ? 12 : width[c] + 3;
  print_row (header, width);
  for (i = 0; i < n; i++)
    {
      row_values (&e[i], &p, &owner, v);
      print_row (v, width);
    }
}

int
cmd_list (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  struct runtime_list_entry *e = NULL;
  bool json = false, quiet = false;
  size_t n = 0, i;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+f:qh", opts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        if (strcmp (optarg, "json") != 0 && strcmp (optarg, "table") != 0)
          return shim_error_plain (err, EINVAL, "list: --format `%s`: table or json", optarg);
        json = strcmp (optarg, "json") == 0;
        break;
      case 'q': quiet = true; break;
      case 'h': return CMD_HELP;
      default: return shim_error_plain (err, EINVAL, "list: unknown option `%s`", argv[optind - 1]);
      }
  if (runtime_list (ctx, json && !quiet, &e, &n, err) < 0)
    {
      runtime_list_free (e, n);
      return -1;
    }
  /* runc's: -q wins over --format. */
  if (quiet)
    for (i = 0; i < n; i++)
      printf ("%s\n", e[i].id);
  else if (json)
    {
      printf ("[");
      for (i = 0; i < n; i++)
        printf ("%s%s", i == 0 ? "" : ",", e[i].state_json);
      printf ("]\n");
    }
  else
    print_list_table (e, n);
  runtime_list_free (e, n);
  return 0;
}

int
cmd_ps (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  struct runtime_ps_entry *e = NULL;
  bool json = false;
  size_t n = 0, i;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+f:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'f': json = strcmp (optarg, "json") == 0; break;
      case 'h': return CMD_HELP;
      default: return shim_error_plain (err, EINVAL, "ps: unknown option `%s`", argv[optind - 1]);
      }
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "ps: a container id is required");
  /* runc's: ps(1)'s own table, `ps -ef` without arguments; --format json
   * is the pid list whatever the arguments. */
  if (!json)
    {
      static char *const ef[] = { (char *) "-ef" };
      cleanup_free char *table = NULL;
      bool args = optind + 1 < argc;
      if (runtime_ps_table (ctx, argv[optind], args ? argv + optind + 1 : ef, args ? (size_t) (argc - optind - 1) : 1,
                            &table, err) < 0)
        return -1;
      fputs (table, stdout);
      return 0;
    }
  if (runtime_ps (ctx, argv[optind], &e, &n, err) < 0)
    {
      runtime_ps_free (e, n);
      return -1;
    }
  printf ("[");
  for (i = 0; i < n; i++)
    printf ("%s%s", i == 0 ? "" : ",", e[i].pid);
  printf ("]\n");
  runtime_ps_free (e, n);
  return 0;
}

/* One event line, as it happens. */
static int
print_line (const char *line, void *opaque)
{
  (void) opaque;
  if (printf ("%s\n", line) < 0 || fflush (stdout) == EOF)
    return -1;
  return 0;
}

static int
parse_interval (const char *s, int *ms)
{
  char *end;
  double v = strtod (s, &end);
  if (end == s || v <= 0)
    return -1;
  if (strcmp (end, "ms") == 0)
    *ms = (int) v;
  else if (strcmp (end, "s") == 0 || *end == '\0')
    *ms = (int) (v * 1000);
  else if (strcmp (end, "m") == 0)
    *ms = (int) (v * 60000);
  else
    return -1;
  return *ms > 0 ? 0 : -1;
}

int
cmd_events (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "stats", no_argument, NULL, 's' },
    { "interval", required_argument, NULL, 'i' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  bool stats = false;
  int c, interval = 5000;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+h", opts, NULL)) != -1)
    switch (c)
      {
      case 's': stats = true; break;
      case 'h': return CMD_HELP;
      case 'i':
        if (parse_interval (optarg, &interval) < 0)
          return shim_error_plain (err, EINVAL, "events: --interval `%s`: e.g. 5s, 500ms", optarg);
        break;
      default: return shim_error_plain (err, EINVAL, "events: unknown option `%s`", argv[optind - 1]);
      }
  if (optind >= argc)
    return shim_error_plain (err, EINVAL, "events: a container id is required");
  return runtime_events (ctx, argv[optind], stats, interval, print_line, NULL, err);
}
