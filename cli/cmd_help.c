/* SPDX-License-Identifier: Apache-2.0 */
/* The option parsing of the commands that take no option but --help
 * (start, state, pause, resume, features). */
#include <errno.h>
#include <getopt.h>

#include "cli/commands.h"

int
cmd_help_only (const char *cmd, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  int c;

  opterr = 0;
  c = getopt_long (argc, argv, "+h", opts, NULL);
  if (c == -1)
    return 0;
  if (c == 'h')
    return CMD_HELP;
  return shim_error_plain (err, EINVAL, "%s: unknown option `%s`", cmd, argv[optind - 1]);
}
