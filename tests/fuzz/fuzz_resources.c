/* SPDX-License-Identifier: Apache-2.0 */
/* `update --resources FILE`: config_resources_parse. */
#include "runtime/config.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *json = fuzz_bytes (data, size);
  struct cgroup_resources res;
  shim_error_t err = NULL;
  int r;

  memset (&res, 0, sizeof res);
  r = config_resources_parse (json, size, &res, &err);
  fuzz_check_error (r, &err);
  config_resources_free (&res);
  free (json);
  return 0;
}
