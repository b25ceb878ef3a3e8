/* SPDX-License-Identifier: Apache-2.0 */
/* verdicts: the verdict history (history/history.h), kept after the
 * engine deleted the container. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "history/history.h"

const char cmd_verdicts_usage[] = "usage: shim verdicts [options] [ID|PREFIX|NAME]\n"
                                  "       the verdicts kept in the verdict history, oldest first\n"
                                  "\n"
                                  "      --json                     a JSON array of the records\n"
                                  "      --since TIME               only those since TIME: 2026-12-06T02:00:00Z,\n"
                                  "                                 @UNIX_SECONDS, or an age (90s, 15m, 2h, 7d)\n";

int
cmd_verdicts (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "json", no_argument, NULL, 'j' },
    { "since", required_argument, NULL, 's' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  const char *since = NULL, *match = NULL;
  char *out = NULL;
  bool json = false;
  int c;

  /* Options before or after the operand: `shim verdicts ID --json`. */
  opterr = 0;
  while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1)
    switch (c)
      {
      case 'j': json = true; break;
      case 's': since = optarg; break;
      case 'h': return CMD_HELP;
      default: return shim_error_plain (err, EINVAL, "verdicts: unknown option `%s`", argv[optind - 1]);
      }
  if (argc - optind > 1)
    return shim_error_plain (err, EINVAL, "verdicts: one ID, prefix or name at most");
  if (argc - optind == 1)
    match = argv[optind];
  if (ctx->history == NULL || ctx->history->dir == NULL)
    return shim_error_plain (err, ENOENT, "verdicts: no verdict history: %s",
                             ctx->history && ctx->history->dir_why ? ctx->history->dir_why : "off");
  if (history_show (ctx->history->dir, match, since, json, &out, err) < 0)
    return -1;
  fputs (out, stdout);
  free (out);
  return 0;
}
