/* SPDX-License-Identifier: Apache-2.0 */
/* ttrpc, the RPC containerd speaks to its shims: frames of a 10-byte header
 * (payload length u32, stream id u32, both big-endian, type u8, flags u8)
 * then a protobuf ttrpc.Request or ttrpc.Response; errors are gRPC status
 * codes.  Only what a server needs: read a request, write a response. */
#ifndef SHIMV2_TTRPC_H
#define SHIMV2_TTRPC_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ttrpc.pb-c.h"

#define TTRPC_HEADER_LEN 10
/* ttrpc's own bound on a message: a longer frame ends the connection. */
#define TTRPC_MESSAGE_MAX (4u << 20)

enum
{
  TTRPC_TYPE_REQUEST = 1,
  TTRPC_TYPE_RESPONSE = 2,
};

/* gRPC's status codes, the ones the shim answers with. */
enum ttrpc_code
{
  TTRPC_OK = 0,
  TTRPC_UNKNOWN = 2,
  TTRPC_INVALID_ARGUMENT = 3,
  TTRPC_DEADLINE_EXCEEDED = 4,
  TTRPC_NOT_FOUND = 5,
  TTRPC_ALREADY_EXISTS = 6,
  TTRPC_PERMISSION_DENIED = 7,
  TTRPC_FAILED_PRECONDITION = 9,
  TTRPC_UNIMPLEMENTED = 12,
  TTRPC_INTERNAL = 13,
  TTRPC_UNAVAILABLE = 14,
};

struct ttrpc_header
{
  uint32_t length;
  uint32_t stream_id;
  uint8_t type;
  uint8_t flags;
};

void ttrpc_header_encode (const struct ttrpc_header *h, uint8_t out[TTRPC_HEADER_LEN]);
void ttrpc_header_decode (const uint8_t in[TTRPC_HEADER_LEN], struct ttrpc_header *h);

/* The status code an errno maps to (containerd's errdefs read them back:
 * NotFound, AlreadyExists, FailedPrecondition, ...). */
enum ttrpc_code ttrpc_code_from_errno (int e);

/* One frame from FD, waiting at most TIMEOUT_MS for each part once the
 * first byte is there.  Returns 1 with *payload malloc'd (h->length bytes),
 * 0 at end of file before a header, -1 on error (a short frame, a frame over
 * TTRPC_MESSAGE_MAX, a read error). */
int ttrpc_read_frame (int fd, int timeout_ms, struct ttrpc_header *h, uint8_t **payload, shim_error_t *err);

/* One frame to FD, whole (bounded by TIMEOUT_MS). */
int ttrpc_write_frame (int fd, int timeout_ms, const struct ttrpc_header *h, const uint8_t *payload,
                       shim_error_t *err);

/* A request frame's payload; free with ttrpc__request__free_unpacked. */
int ttrpc_request_decode (const uint8_t *buf, size_t len, Ttrpc__Request **out, shim_error_t *err);

/* A response: CODE and MESSAGE (TTRPC_OK: no status), or the reply's
 * bytes.  *out is malloc'd. */
int ttrpc_response_encode (enum ttrpc_code code, const char *message, const uint8_t *payload, size_t len,
                           uint8_t **out, size_t *out_len, shim_error_t *err);

#endif
