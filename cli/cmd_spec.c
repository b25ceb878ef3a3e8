/* SPDX-License-Identifier: Apache-2.0 */
/* features and spec: what this runtime implements, and a config.json to
 * start from. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "common/util.h"

const char cmd_features_usage[] = "usage: shim features\n"
                                  "\n";
const char cmd_spec_usage[] = "usage: shim spec [options]\n"
                              "\n"
                              "  -b, --bundle DIR               where to write config.json (default: .)\n"
                              "      --rootless                 for a user namespace: root is the caller\n";

int
cmd_features (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  cleanup_free char *json = NULL;
  int ret = cmd_help_only ("features", argc, argv, err);

  (void) ctx;
  if (ret != 0)
    return ret;
  if (optind < argc)
    return shim_error_plain (err, EINVAL, "features: takes no arguments");
  if (runtime_features (&json, err) < 0)
    return -1;
  fputs (json, stdout);
  return 0;
}

int
cmd_spec (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "rootless", no_argument, NULL, 'R' },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  const char *bundle = ".";
  bool rootless = false;
  int c;

  (void) ctx;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+b:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'b': bundle = optarg; break;
      case 'R': rootless = true; break;
      case 'h': return CMD_HELP;
      default: return shim_error_plain (err, EINVAL, "spec: unknown option `%s`", argv[optind - 1]);
      }
  if (optind < argc)
    return shim_error_plain (err, EINVAL, "spec: unexpected argument `%s`: takes no arguments (see --bundle)",
                             argv[optind]);
  return runtime_spec (bundle, rootless, err);
}
