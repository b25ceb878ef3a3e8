/* SPDX-License-Identifier: Apache-2.0 */
/* The option parsing of the commands that take no option but --help
 * (start, state, pause, resume, features), and runc's commands that shim
 * does not implement (checkpoint, restore). */
#include <errno.h>
#include <getopt.h>
#include <string.h>

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

#define UNSUPPORTED_USAGE(cmd)                                                                                        \
  "usage: shim " cmd " [options] ID\n"                                                                                \
  "\n"                                                                                                                \
  "Not supported by shim: it has no checkpoint/restore (runc's uses CRIU).\n"                                         \
  "Every call fails and changes nothing.\n"                                                                           \
  "\n"
const char cmd_checkpoint_usage[] = UNSUPPORTED_USAGE ("checkpoint");
const char cmd_restore_usage[] = UNSUPPORTED_USAGE ("restore");

int
cmd_unsupported (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  int i;

  (void) ctx;
  /* runc's options for these take values we do not know: --help anywhere
   * asks for the help, anything else is the one answer. */
  for (i = 1; i < argc; i++)
    if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
      return CMD_HELP;
  return shim_error_plain (err, ENOTSUP, "%s: not supported by shim (it has no checkpoint/restore); nothing was done",
                           argv[0]);
}
