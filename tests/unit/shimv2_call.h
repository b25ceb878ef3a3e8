/* SPDX-License-Identifier: Apache-2.0 */
/* The shim v2 unit tests' way to drive the task service: a request made
 * as containerd makes it, given to task_handle, its ttrpc.Response
 * decoded. */
#ifndef SHIM_TEST_SHIMV2_CALL_H
#define SHIM_TEST_SHIMV2_CALL_H

#include <stdlib.h>

#include "common/util.h"
#include "shimv2/task.h"
#include "shimv2/ttrpc.h"
#include "tap.h"

/* METHOD of SERVICE with M (NULL: a payload that is no protobuf message)
 * on connection FD, stream 9; *RET is task_handle's return (1: deferred,
 * then NULL is returned, as on an error). */
static inline Ttrpc__Response *
shimv2_call_fd (struct task_service *s, int fd, const char *service, const char *method, const ProtobufCMessage *m,
                int *ret)
{
  /* Not a protobuf message at all: a field with wire type 7. */
  static uint8_t junk[] = { 0xff, 0xff, 0xff };
  Ttrpc__Request req = TTRPC__REQUEST__INIT;
  cleanup_free uint8_t *payload = NULL, *resp = NULL;
  size_t len = 0;
  shim_error_t e = NULL;

  req.service = (char *) service;
  req.method = (char *) method;
  req.payload.data = junk;
  req.payload.len = sizeof junk;
  if (m)
    {
      payload = malloc (protobuf_c_message_get_packed_size (m) + 1);
      req.payload.len = protobuf_c_message_pack (m, payload);
      req.payload.data = payload;
    }
  *ret = task_handle (s, fd, 9, &req, &resp, &len, &e);
  if (*ret != 0)
    {
      if (e)
        diag ("task_handle: %s", e->msg);
      shim_error_release (&e);
      return NULL;
    }
  return ttrpc__response__unpack (NULL, len, resp);
}

/* The gRPC code of R (0: OK, -1: no response), R freed. */
static inline int
shimv2_code_of (Ttrpc__Response *r)
{
  int c = r == NULL ? -1 : r->status ? r->status->code : 0;
  if (r)
    ttrpc__response__free_unpacked (r, NULL);
  return c;
}

#endif
