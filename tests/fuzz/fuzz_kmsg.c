/* SPDX-License-Identifier: Apache-2.0 */
/* One /dev/kmsg record as read(2) returns it: kmsg_parse_record.  Its
 * text is partly the workload's (a task's comm, cgroup names it chose). */
#include "verdict/kmsg.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *rec = fuzz_bytes (data, size);
  struct kmsg_oom_kill k;
  int r = kmsg_parse_record (rec, size, &k);

  if (r != 0 && r != 1)
    abort ();
  /* What it keeps are C strings within their arrays. */
  if (r == 1
      && (strnlen (k.oom_memcg, sizeof k.oom_memcg) == sizeof k.oom_memcg
          || strnlen (k.task_memcg, sizeof k.task_memcg) == sizeof k.task_memcg
          || strnlen (k.comm, sizeof k.comm) == sizeof k.comm))
    abort ();
  if (r == 1 && k.task_memcg[0])
    (void) kmsg_path_within (k.task_memcg, "/");
  free (rec);
  return 0;
}
