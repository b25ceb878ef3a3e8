/* SPDX-License-Identifier: Apache-2.0 */
/* Cleanup attributes for yajl's generator and trees, shared by the hook's
 * files. */
#ifndef SHIM_HOOK_JSON_H
#define SHIM_HOOK_JSON_H

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

static inline void
cleanup_yajl_genp (yajl_gen *g)
{
  if (*g)
    yajl_gen_free (*g);
}

static inline void
cleanup_yajl_valp (yajl_val *v)
{
  if (*v)
    yajl_tree_free (*v);
}

#define cleanup_yajl_gen __attribute__ ((cleanup (cleanup_yajl_genp)))
#define cleanup_yajl_val __attribute__ ((cleanup (cleanup_yajl_valp)))

#endif
