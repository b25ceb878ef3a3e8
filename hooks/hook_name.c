/* SPDX-License-Identifier: Apache-2.0 */
#include "hooks/hook_name.h"

#include <stdlib.h>
#include <string.h>

#include "history/history.h"

void
hook_name_find (const struct hook_state *st, char **name)
{
  *name = NULL;
  if (st->name)
    *name = strdup (st->name);
  else if (st->bundle && st->podman)
    history_name_podman (st->bundle, name);
}
