/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup files the verdict reads (cgroup_files.h): memory.events(.local),
 * memory.stat, cgroup.events, and the one-number files (memory.peak,
 * memory.max, ...).  The first byte picks the parser, the rest is the file,
 * so one corpus covers them all. */
#include "cgroup/cgroup_files.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct cg_memory_events ev;
  struct cg_memory_stat stat;
  struct cg_cgroup_events cev;
  shim_error_t err = NULL;
  uint64_t n;
  char *buf;
  int r;

  if (size == 0)
    return 0;
  buf = fuzz_string (data + 1, size - 1);
  switch (data[0] % 5)
    {
    case 0:
      r = cg_parse_memory_events ("memory.events", buf, &ev, &err);
      break;
    case 1:
      r = cg_parse_memory_stat ("memory.stat", buf, &stat, &err);
      break;
    case 2:
      r = cg_parse_cgroup_events ("cgroup.events", buf, &cev, &err);
      break;
    case 3:
      r = cg_parse_u64_file ("memory.peak", buf, &n, &err);
      break;
    default:
      r = cg_parse_limit_file ("memory.max", buf, &n, &err);
      break;
    }
  fuzz_check_error (r, &err);
  free (buf);
  return 0;
}
