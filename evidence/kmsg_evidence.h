/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel log's evidence in the watcher's record: a struct
 * kmsg_evidence (verdict/kmsg.h) as JSON and back, the kernel's bytes
 * escaped as it escapes them. */
#ifndef SHIM_KMSG_EVIDENCE_H
#define SHIM_KMSG_EVIDENCE_H

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/error.h"
#include "verdict/kmsg.h"

/* The evidence as a JSON object (the next value of G), and back. */
int kmsg_evidence_gen (yajl_gen g, const struct kmsg_evidence *ev, shim_error_t *err);
int kmsg_evidence_from_tree (yajl_val v, const char *where, struct kmsg_evidence *ev,
                             shim_error_t *err);

#endif
