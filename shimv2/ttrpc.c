/* SPDX-License-Identifier: Apache-2.0 */
/* ttrpc's framing and its request/response messages (see ttrpc.h). */
#include "shimv2/ttrpc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/util.h"

void
ttrpc_header_encode (const struct ttrpc_header *h, uint8_t out[TTRPC_HEADER_LEN])
{
  int i;
  for (i = 0; i < 4; i++)
    {
      out[i] = (uint8_t) (h->length >> (24 - 8 * i));
      out[4 + i] = (uint8_t) (h->stream_id >> (24 - 8 * i));
    }
  out[8] = h->type;
  out[9] = h->flags;
}

void
ttrpc_header_decode (const uint8_t in[TTRPC_HEADER_LEN], struct ttrpc_header *h)
{
  int i;
  h->length = h->stream_id = 0;
  for (i = 0; i < 4; i++)
    {
      h->length = (h->length << 8) | in[i];
      h->stream_id = (h->stream_id << 8) | in[4 + i];
    }
  h->type = in[8];
  h->flags = in[9];
}

enum ttrpc_code
ttrpc_code_from_errno (int e)
{
  switch (e)
    {
    case 0:
      return TTRPC_UNKNOWN;
    case ENOENT:
    case ESRCH:
      return TTRPC_NOT_FOUND;
    case EEXIST:
      return TTRPC_ALREADY_EXISTS;
    case EINVAL:
      return TTRPC_INVALID_ARGUMENT;
    case EPERM:
    case EACCES:
      return TTRPC_PERMISSION_DENIED;
    case EBUSY:
    case ENOTTY:
      return TTRPC_FAILED_PRECONDITION;
    case ENOSYS:
    case EOPNOTSUPP:
      return TTRPC_UNIMPLEMENTED;
    case ETIMEDOUT:
      return TTRPC_DEADLINE_EXCEEDED;
    default:
      return TTRPC_UNKNOWN;
    }
}

/* LEN bytes from FD, each wait bounded: 1 done, 0 end of file before the
 * first byte (when EOF_OK), -1 error. */
static int
read_full (int fd, int timeout_ms, uint8_t *buf, size_t len, int eof_ok, shim_error_t *err)
{
  size_t got = 0;
  while (got < len)
    {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      int r = poll (&p, 1, timeout_ms);
      ssize_t n;
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return shim_error_errno (err, "ttrpc: poll");
      if (r == 0)
        return shim_error (err, ETIMEDOUT, "ttrpc: a frame cut short (%zu of %zu bytes)", got, len);
      n = read (fd, buf + got, len - got);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        return shim_error_errno (err, "ttrpc: read");
      if (n == 0)
        {
          if (got == 0 && eof_ok)
            return 0;
          return shim_error (err, EPROTO, "ttrpc: end of stream inside a frame (%zu of %zu bytes)", got, len);
        }
      got += (size_t) n;
    }
  return 1;
}

int
ttrpc_read_frame (int fd, int timeout_ms, struct ttrpc_header *h, uint8_t **payload, shim_error_t *err)
{
  uint8_t hdr[TTRPC_HEADER_LEN];
  cleanup_free uint8_t *buf = NULL;
  int r;

  r = read_full (fd, timeout_ms, hdr, sizeof hdr, 1, err);
  if (r <= 0)
    return r;
  ttrpc_header_decode (hdr, h);
  if (h->length > TTRPC_MESSAGE_MAX)
    return shim_error (err, EMSGSIZE, "ttrpc: a frame of %u bytes (more than %u)", h->length, TTRPC_MESSAGE_MAX);
  buf = malloc (h->length ? h->length : 1);
  if (buf == NULL)
    return shim_error_errno (err, "ttrpc: malloc");
  if (h->length > 0 && read_full (fd, timeout_ms, buf, h->length, 0, err) < 0)
    return -1;
  *payload = steal_pointer (&buf);
  return 1;
}

int
ttrpc_write_frame (int fd, int timeout_ms, const struct ttrpc_header *h, const uint8_t *payload,
                   shim_error_t *err)
{
  cleanup_free uint8_t *buf = malloc (TTRPC_HEADER_LEN + h->length);
  size_t len = TTRPC_HEADER_LEN + h->length, done = 0;

  if (buf == NULL)
    return shim_error_errno (err, "ttrpc: malloc");
  ttrpc_header_encode (h, buf);
  if (h->length)
    memcpy (buf + TTRPC_HEADER_LEN, payload, h->length);
  while (done < len)
    {
      struct pollfd p = { .fd = fd, .events = POLLOUT };
      ssize_t n;
      int r = poll (&p, 1, timeout_ms);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return shim_error (err, r == 0 ? ETIMEDOUT : errno, "ttrpc: the peer reads no reply");
      n = send (fd, buf + done, len - done, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        return shim_error_errno (err, "ttrpc: send");
      done += (size_t) n;
    }
  return 0;
}

int
ttrpc_request_decode (const uint8_t *buf, size_t len, Ttrpc__Request **out, shim_error_t *err)
{
  Ttrpc__Request *req = ttrpc__request__unpack (NULL, len, buf);
  if (req == NULL)
    return shim_error (err, EPROTO, "ttrpc: a request that is not a ttrpc.Request (%zu bytes)", len);
  *out = req;
  return 0;
}

int
ttrpc_response_encode (enum ttrpc_code code, const char *message, const uint8_t *payload, size_t len,
                       uint8_t **out, size_t *out_len, shim_error_t *err)
{
  Ttrpc__Response resp = TTRPC__RESPONSE__INIT;
  Ttrpc__Status st = TTRPC__STATUS__INIT;
  size_t n;

  if (code != TTRPC_OK)
    {
      st.code = (int32_t) code;
      st.message = (char *) (message ? message : "");
      resp.status = &st;
    }
  else if (len > 0)
    {
      resp.payload.data = (uint8_t *) payload;
      resp.payload.len = len;
    }
  n = ttrpc__response__get_packed_size (&resp);
  *out = malloc (n ? n : 1);
  if (*out == NULL)
    return shim_error_errno (err, "ttrpc: malloc");
  *out_len = ttrpc__response__pack (&resp, *out);
  return 0;
}
