/* SPDX-License-Identifier: Apache-2.0 */
/* pause, resume, update: changing a running container's cgroup. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/util.h"

const char cmd_pause_usage[] = "usage: shim pause ID\n"
                               "\n";
const char cmd_resume_usage[] = "usage: shim resume ID\n"
                                "\n";
const char cmd_update_usage[] = "usage: shim update [options] ID\n"
                                "\n"
                                "  -r, --resources FILE|-         the resources as OCI JSON (-: stdin)\n"
                                "      --memory BYTES             memory limit (-1: unlimited)\n"
                                "      --memory-reservation BYTES memory soft limit\n"
                                "      --memory-swap BYTES        memory + swap limit (-1: unlimited)\n"
                                "      --pids-limit N             most processes (-1: unlimited)\n"
                                "      --cpu-shares N             CPU weight, relative\n"
                                "      --cpu-quota N              CPU time per period (us)\n"
                                "      --cpu-period N             CPU period (us)\n"
                                "      --cpu-rt-period N          CPU real-time period (us; cgroup v1)\n"
                                "      --cpu-rt-runtime N         CPU real-time time per period (us; cgroup v1)\n"
                                "      --cpuset-cpus LIST         CPUs allowed (e.g. 0-3,5)\n"
                                "      --cpuset-mems LIST         memory nodes allowed\n"
                                "      --blkio-weight N           block I/O weight, relative\n";

static int
freeze (const struct runtime_ctx *ctx, int argc, char **argv, bool frozen, shim_error_t *err)
{
  const char *cmd = frozen ? "pause" : "resume";
  int ret = cmd_help_only (cmd, argc, argv, err);

  if (ret != 0)
    return ret;
  if (argc - optind != 1)
    return shim_error_plain (err, EINVAL, "%s: exactly one container id is required", cmd);
  return frozen ? runtime_pause (ctx, argv[optind], err) : runtime_resume (ctx, argv[optind], err);
}

int
cmd_pause (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  return freeze (ctx, argc, argv, true, err);
}

int
cmd_resume (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  return freeze (ctx, argc, argv, false, err);
}

static void
cleanup_resourcesp (struct cgroup_resources *r)
{
  runtime_resources_release (r);
}

/* The other numeric flags: plain integers; -1 is unlimited. */
static int
flag_i64 (const char *flag, const char *v, int64_t *out, bool *has, shim_error_t *err)
{
  if (util_parse_i64 (v, out) < 0)
    return shim_error_plain (err, EINVAL, "update: %s `%s`: not a number", flag, v);
  *has = true;
  return 0;
}

/* The memory flags: a size with a unit as runc takes them ("100M"), or -1
 * for unlimited. */
static int
flag_size (const char *flag, const char *v, int64_t *out, bool *has, shim_error_t *err)
{
  if (util_parse_i64 (v, out) < 0 && util_parse_size (v, out) < 0)
    return shim_error_plain (err, EINVAL, "update: %s `%s`: not a size", flag, v);
  *has = true;
  return 0;
}

int
cmd_update (const struct runtime_ctx *ctx, int argc, char **argv, shim_error_t *err)
{
  enum { O_MEM = 256, O_RES, O_SWAP, O_PIDS, O_SHARES, O_QUOTA, O_PERIOD, O_CPUS, O_MEMS, O_BLKIO, O_RT_PERIOD, O_RT_RUNTIME };
  static const struct option opts[] = {
    { "resources", required_argument, NULL, 'r' },
    { "memory", required_argument, NULL, O_MEM },
    { "memory-reservation", required_argument, NULL, O_RES },
    { "memory-swap", required_argument, NULL, O_SWAP },
    { "pids-limit", required_argument, NULL, O_PIDS },
    { "cpu-shares", required_argument, NULL, O_SHARES },
    { "cpu-quota", required_argument, NULL, O_QUOTA },
    { "cpu-period", required_argument, NULL, O_PERIOD },
    { "cpu-rt-period", required_argument, NULL, O_RT_PERIOD },
    { "cpu-rt-runtime", required_argument, NULL, O_RT_RUNTIME },
    { "cpuset-cpus", required_argument, NULL, O_CPUS },
    { "cpuset-mems", required_argument, NULL, O_MEMS },
    { "blkio-weight", required_argument, NULL, O_BLKIO },
    CMD_HELP_OPTION,
    { NULL, 0, NULL, 0 },
  };
  __attribute__ ((cleanup (cleanup_resourcesp))) struct cgroup_resources res = { 0 };
  const char *file = NULL;
  int64_t x;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+r:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'r': file = optarg; break;
      case 'h': return CMD_HELP;
      case O_MEM:
        if (flag_size ("--memory", optarg, &res.memory_limit, &res.has_memory_limit, err) < 0)
          return -1;
        break;
      case O_RES:
        if (flag_size ("--memory-reservation", optarg, &res.memory_reservation, &res.has_memory_reservation, err) < 0)
          return -1;
        break;
      case O_SWAP:
        if (flag_size ("--memory-swap", optarg, &res.memory_swap, &res.has_memory_swap, err) < 0)
          return -1;
        break;
      case O_PIDS:
        if (flag_i64 ("--pids-limit", optarg, &res.pids_limit, &res.has_pids_limit, err) < 0)
          return -1;
        break;
      case O_SHARES:
        if (flag_i64 ("--cpu-shares", optarg, &x, &res.has_cpu_shares, err) < 0)
          return -1;
        res.cpu_shares = (uint64_t) x;
        break;
      case O_QUOTA:
        if (flag_i64 ("--cpu-quota", optarg, &res.cpu_quota, &res.has_cpu_quota, err) < 0)
          return -1;
        break;
      case O_PERIOD:
        if (flag_i64 ("--cpu-period", optarg, &x, &res.has_cpu_period, err) < 0)
          return -1;
        res.cpu_period = (uint64_t) x;
        break;
      case O_RT_PERIOD:
        if (flag_i64 ("--cpu-rt-period", optarg, &x, &res.has_cpu_rt_period, err) < 0)
          return -1;
        res.cpu_rt_period = (uint64_t) x;
        break;
      case O_RT_RUNTIME:
        if (flag_i64 ("--cpu-rt-runtime", optarg, &res.cpu_rt_runtime, &res.has_cpu_rt_runtime, err) < 0)
          return -1;
        break;
      case O_CPUS:
        free (res.cpu_cpus);
        res.cpu_cpus = strdup (optarg);
        break;
      case O_MEMS:
        free (res.cpu_mems);
        res.cpu_mems = strdup (optarg);
        break;
      case O_BLKIO:
        if (flag_i64 ("--blkio-weight", optarg, &x, &res.has_blkio_weight, err) < 0)
          return -1;
        res.blkio_weight = (uint16_t) x;
        break;
      default: return shim_error_plain (err, EINVAL, "update: unknown option `%s`", argv[optind - 1]);
      }
  if (optind != argc - 1)
    return shim_error_plain (err, EINVAL, "update: exactly one container id is required");
  return runtime_update (ctx, argv[optind], &res, file, err);
}
