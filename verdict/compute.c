/* SPDX-License-Identifier: Apache-2.0 */
/* verdict_compute: the rules decide (rules.c), the text tells (text.c);
 * verdict_oom_killed: the rules alone. */
#include "verdict/verdict_internal.h"

#include <stdio.h>
#include <string.h>

void
verdict_compute (const struct verdict_input *in, struct verdict *v)
{
  struct verdict_input named = *in;
  struct verdict_facts f;

  if (named.container_id == NULL)
    named.container_id = "?";
  verdict_decide (&named, v, &f);
  verdict_tell (&named, &f, v);
  v->provisional = in->provisional;
  if (v->provisional)
    {
      size_t n = strlen (v->message);
      snprintf (v->message + n, sizeof v->message - n,
                " (provisional: the watcher had not written its last record)");
    }
}

enum verdict_tri
verdict_oom_killed (const struct verdict_input *in)
{
  struct verdict_input named = *in;
  struct verdict_facts f;
  struct verdict v;

  if (named.container_id == NULL)
    named.container_id = "?";
  verdict_decide (&named, &v, &f);
  return v.oom_killed;
}
