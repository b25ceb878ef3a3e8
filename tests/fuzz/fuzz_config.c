/* SPDX-License-Identifier: Apache-2.0 */
/* config.json: config_parse, the parser of every bundle's config. */
#include "runtime/config.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *json = fuzz_bytes (data, size);
  struct shim_config *c = NULL;
  shim_error_t err = NULL;
  int r = config_parse (json, size, "/fuzz/bundle", &c, fuzz_warn, NULL, &err);

  /* Either a config or an error, never both nor neither. */
  if ((r == 0) != (c != NULL))
    abort ();
  fuzz_check_error (r, &err);
  config_free (c);
  free (json);
  return 0;
}
