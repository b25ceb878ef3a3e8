/* SPDX-License-Identifier: Apache-2.0 */
/* config_resources_parse(): the linux.resources fields beyond memory, pids,
 * cpu shares/quota, blockIO.weight and devices (test_config.c has those):
 * memory.disableOOMKiller, cpu.realtime*, blockIO's per-device lists and
 * hugepageLimits, with the errors that name the JSON path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"
#include "tap.h"

/* Parse JSON into *r; the error message (malloc'd) or NULL. */
static char *
parse (const char *json, struct cgroup_resources *r)
{
  shim_error_t err = NULL;
  char *msg = NULL;
  if (config_resources_parse (json, strlen (json), r, &err) < 0)
    {
      msg = strdup (err && err->msg ? err->msg : "?");
      shim_error_release (&err);
    }
  return msg;
}

static void
test_oom_and_rt (void)
{
  struct cgroup_resources r;
  char *msg;

  msg = parse ("{\"memory\": {\"limit\": 1048576, \"disableOOMKiller\": true},"
               " \"cpu\": {\"realtimeRuntime\": 950000, \"realtimePeriod\": 1000000}}",
               &r);
  ok (msg == NULL, "disableOOMKiller and realtime parse");
  ok (r.oom_kill_disable, "memory.disableOOMKiller: true");
  ok (r.has_cpu_rt_runtime && r.cpu_rt_runtime == 950000, "cpu.realtimeRuntime");
  ok (r.has_cpu_rt_period && r.cpu_rt_period == 1000000, "cpu.realtimePeriod");
  config_resources_free (&r);
  free (msg);

  msg = parse ("{\"memory\": {\"disableOOMKiller\": false}, \"cpu\": {\"shares\": 512}}", &r);
  ok (msg == NULL && !r.oom_kill_disable && !r.has_cpu_rt_runtime && !r.has_cpu_rt_period,
      "disableOOMKiller false; no realtime unless given");
  config_resources_free (&r);
  free (msg);

  msg = parse ("{\"memory\": {\"disableOOMKiller\": 1}}", &r);
  is_str (msg, "resources.memory.disableOOMKiller: expected boolean, got number", "a non-boolean is named");
  config_resources_free (&r);
  free (msg);
  msg = parse ("{\"cpu\": {\"realtimePeriod\": -1}}", &r);
  ok (msg && strstr (msg, "resources.cpu.realtimePeriod") == msg, "a negative realtimePeriod is named: %s",
      msg ? msg : "(parsed)");
  config_resources_free (&r);
  free (msg);
}

static void
test_blkio_devices (void)
{
  struct cgroup_resources r;
  char *msg;

  msg = parse ("{\"blockIO\": {\"weight\": 500,"
               " \"weightDevice\": [{\"major\": 8, \"minor\": 0, \"weight\": 300}, {\"major\": 8, \"minor\": 16,"
               " \"leafWeight\": 10}],"
               " \"throttleReadBpsDevice\": [{\"major\": 254, \"minor\": 0, \"rate\": 1048576}],"
               " \"throttleWriteBpsDevice\": [{\"major\": 254, \"minor\": 0, \"rate\": 2097152}],"
               " \"throttleReadIOPSDevice\": [{\"major\": 254, \"minor\": 0, \"rate\": 100}],"
               " \"throttleWriteIOPSDevice\": [{\"major\": 254, \"minor\": 1, \"rate\": 200}]}}",
               &r);
  ok (msg == NULL, "blockIO's lists parse: %s", msg ? msg : "ok");
  is_int (r.n_blkio_devices, 5, "five entries (a leafWeight-only one is no entry)");
  if (r.n_blkio_devices == 5)
    {
      ok (r.blkio_devices[0].kind == CGROUP_BLKIO_WEIGHT && r.blkio_devices[0].major == 8
              && r.blkio_devices[0].minor == 0 && r.blkio_devices[0].value == 300,
          "weightDevice 8:0 300");
      ok (r.blkio_devices[1].kind == CGROUP_BLKIO_READ_BPS && r.blkio_devices[1].major == 254
              && r.blkio_devices[1].value == 1048576,
          "throttleReadBpsDevice 254:0 1048576");
      ok (r.blkio_devices[2].kind == CGROUP_BLKIO_WRITE_BPS && r.blkio_devices[2].value == 2097152,
          "throttleWriteBpsDevice");
      ok (r.blkio_devices[3].kind == CGROUP_BLKIO_READ_IOPS && r.blkio_devices[3].value == 100,
          "throttleReadIOPSDevice");
      ok (r.blkio_devices[4].kind == CGROUP_BLKIO_WRITE_IOPS && r.blkio_devices[4].minor == 1
              && r.blkio_devices[4].value == 200,
          "throttleWriteIOPSDevice");
    }
  ok (r.has_blkio_weight && r.blkio_weight == 500, "weight still parsed");
  config_resources_free (&r);
  free (msg);

  msg = parse ("{\"blockIO\": {\"throttleReadBpsDevice\": [{\"major\": 254, \"minor\": 0}]}}", &r);
  is_str (msg, "resources.blockIO.throttleReadBpsDevice[0].rate: required", "a missing rate is named");
  config_resources_free (&r);
  free (msg);
  msg = parse ("{\"blockIO\": {\"throttleWriteIOPSDevice\": [{\"minor\": 0, \"rate\": 1}]}}", &r);
  is_str (msg, "resources.blockIO.throttleWriteIOPSDevice[0].major: required", "a missing major is named");
  config_resources_free (&r);
  free (msg);
  msg = parse ("{\"blockIO\": {\"weightDevice\": [{\"major\": 8, \"minor\": 0, \"weight\": 5}]}}", &r);
  is_str (msg, "resources.blockIO.weightDevice[0].weight: 5 is outside 10..1000", "a weight out of range");
  config_resources_free (&r);
  free (msg);
  msg = parse ("{\"blockIO\": {\"throttleReadBpsDevice\": {}}}", &r);
  is_str (msg, "resources.blockIO.throttleReadBpsDevice: expected array, got object", "not an array");
  config_resources_free (&r);
  free (msg);
}

static void
test_hugepages (void)
{
  struct cgroup_resources r;
  char *msg;
  bool has_2m = access ("/sys/kernel/mm/hugepages/hugepages-2048kB", F_OK) == 0;

  msg = parse ("{\"hugepageLimits\": [{\"pageSize\": \"3MB\", \"limit\": 0}]}", &r);
  ok (msg && strstr (msg, "resources.hugepageLimits[0].pageSize: `3MB`: this kernel has no such huge page size")
               == msg,
      "a page size the kernel does not have is named: %s", msg ? msg : "(parsed)");
  config_resources_free (&r);
  free (msg);
  msg = parse ("{\"hugepageLimits\": [{\"pageSize\": \"2M\", \"limit\": 0}]}", &r);
  is_str (msg, "resources.hugepageLimits[0].pageSize: `2M` is not a page size (like 2MB or 1GB)",
          "not a size at all");
  config_resources_free (&r);
  free (msg);
  msg = parse ("{\"hugepageLimits\": [{\"limit\": 0}]}", &r);
  is_str (msg, "resources.hugepageLimits[0].pageSize: required", "pageSize required");
  config_resources_free (&r);
  free (msg);
  if (!ok (has_2m, "this kernel has 2 MiB huge pages (x86_64 does)"))
    return;
  msg = parse ("{\"hugepageLimits\": [{\"pageSize\": \"2MB\", \"limit\": 4194304},"
               " {\"pageSize\": \"2048KB\", \"limit\": 0}]}",
               &r);
  ok (msg == NULL && r.n_hugepages == 2, "hugepageLimits parse");
  if (r.n_hugepages == 2)
    {
      ok (strcmp (r.hugepages[0].page_size, "2MB") == 0 && r.hugepages[0].limit == 4194304, "2MB 4194304");
      is_str (r.hugepages[1].page_size, "2MB", "2048KB is named the kernel's way, 2MB");
    }
  config_resources_free (&r);
  free (msg);
}

/* Swap (memory + swap) below the limit: from the JSON, or from a limit
 * set after the parse (run --memory), named with where it came from. */
static void
test_memory_check (void)
{
  struct cgroup_resources r = { 0 };
  cleanup_error shim_error_t err = NULL;
  char *msg;

  msg = parse ("{\"memory\": {\"limit\": 134217728, \"swap\": 67108864}}", &r);
  is_str (msg ? msg : "", "resources.memory.swap: 67108864 is below limit 134217728 (swap counts memory plus swap)",
          "swap below the limit in the JSON");
  free (msg);
  config_resources_free (&r);
  r = (struct cgroup_resources){ 0 };
  msg = parse ("{\"memory\": {\"limit\": 67108864, \"swap\": 134217728}}", &r);
  ok (msg == NULL, "swap above the limit parses");
  free (msg);
  r.memory_limit = 268435456; /* run --memory 256M, after the parse */
  ok (config_memory_check (&r, "linux.resources.memory", "--memory", &err) < 0 && err && err->status == EINVAL,
      "the flag's limit above the config's swap is refused (EINVAL)");
  is_str (err ? err->msg : "",
          "linux.resources.memory.swap: 134217728 is below the limit 268435456 of --memory (swap counts memory "
          "plus swap): give a larger swap or a smaller --memory",
          "... naming both values and the flag");
  shim_error_release (&err);
  r.memory_limit = 100000000;
  ok (config_memory_check (&r, "linux.resources.memory", "--memory", &err) == 0, "a flag's limit within swap");
  config_resources_free (&r);
}

int
main (void)
{
  test_memory_check ();
  test_oom_and_rt ();
  test_blkio_devices ();
  test_hugepages ();
  return done_testing ();
}
