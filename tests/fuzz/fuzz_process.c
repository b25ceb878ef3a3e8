/* SPDX-License-Identifier: Apache-2.0 */
/* `exec --process FILE`: config_process_parse. */
#include "runtime/config.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *json = fuzz_bytes (data, size);
  struct shim_process p;
  shim_error_t err = NULL;
  int r;

  memset (&p, 0, sizeof p);
  r = config_process_parse (json, size, &p, fuzz_warn, NULL, &err);
  fuzz_check_error (r, &err);
  /* Released whether it parsed or not, as exec does. */
  config_process_free (&p);
  free (json);
  return 0;
}
