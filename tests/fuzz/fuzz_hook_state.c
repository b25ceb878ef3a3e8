/* SPDX-License-Identifier: Apache-2.0 */
/* shim-oom-hook's stdin (the OCI state any runtime sends) and the stage
 * named by a status in it.  The hook's sources are compiled in, as in its
 * unit test. */
#include "hooks/hook_state.c"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *json = fuzz_string (data, size);
  struct hook_state st;
  shim_error_t err = NULL;
  enum hook_stage stage;
  int r;

  memset (&st, 0, sizeof st);
  r = hook_state_parse (json, &st, &err);
  fuzz_check_error (r, &err);
  if (r == 0)
    {
      if (st.id == NULL)
        abort ();
      r = hook_state_id_check (st.id, &err);
      fuzz_check_error (r, &err);
      if (st.status)
        {
          r = hook_state_stage_from_status (st.status, &stage, &err);
          fuzz_check_error (r, &err);
        }
    }
  hook_state_release (&st);
  free (json);
  return 0;
}
