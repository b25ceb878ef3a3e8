/* SPDX-License-Identifier: Apache-2.0 */
/* The task service's answers (see reply.h). */
#include "shimv2/reply.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/util.h"
#include "containerd/shim.pb-c.h"
#include "google/protobuf/empty.pb-c.h"

/* How long a deferred answer may take to be written. */
#define REPLY_WRITE_MS 5000

int
reply_msg (const ProtobufCMessage *m, uint8_t **out, size_t *len, shim_error_t *err)
{
  cleanup_free uint8_t *buf = malloc (protobuf_c_message_get_packed_size (m) + 1);
  size_t n;
  if (buf == NULL)
    return shim_error_errno (err, "task: malloc");
  n = protobuf_c_message_pack (m, buf);
  return ttrpc_response_encode (TTRPC_OK, NULL, buf, n, out, len, err);
}

int
reply_empty (uint8_t **out, size_t *len, shim_error_t *err)
{
  Google__Protobuf__Empty e = GOOGLE__PROTOBUF__EMPTY__INIT;
  return reply_msg (&e.base, out, len, err);
}

int
reply_status (enum ttrpc_code code, uint8_t **out, size_t *len, shim_error_t *err, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  return ttrpc_response_encode (code, msg, NULL, 0, out, len, err);
}

int
reply_error (shim_error_t *e, const char *what, uint8_t **out, size_t *len, shim_error_t *err)
{
  int r = reply_status (ttrpc_code_from_errno ((*e)->status), out, len, err, "%s: %s", what, (*e)->msg);
  log_msg (LOG_ERROR, "%s: %s", what, (*e)->msg);
  shim_error_release (e);
  return r;
}

Google__Protobuf__Timestamp
reply_timestamp (const struct timespec *t)
{
  Google__Protobuf__Timestamp ts = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
  ts.seconds = t->tv_sec;
  ts.nanos = (int32_t) t->tv_nsec;
  return ts;
}

int
reply_state (const struct reply_state_of *st, uint8_t **out, size_t *len, shim_error_t *err)
{
  Containerd__Task__V2__StateResponse resp = CONTAINERD__TASK__V2__STATE_RESPONSE__INIT;
  Google__Protobuf__Timestamp ts = reply_timestamp (st->exited_at);
  resp.id = (char *) st->id;
  resp.exec_id = (char *) (st->exec_id ? st->exec_id : "");
  resp.bundle = (char *) st->bundle;
  resp.pid = (uint32_t) st->pid;
  resp.status = st->status;
  resp.stdin = (char *) st->stdin_path;
  resp.stdout = (char *) st->stdout_path;
  resp.stderr = (char *) st->stderr_path;
  resp.terminal = st->terminal;
  if (st->exited)
    {
      resp.exit_status = st->exit_status;
      resp.exited_at = &ts;
    }
  return reply_msg (&resp.base, out, len, err);
}

int
reply_wait (uint32_t exit_status, const struct timespec *exited_at, uint8_t **out, size_t *len,
            shim_error_t *err)
{
  Containerd__Task__V2__WaitResponse resp = CONTAINERD__TASK__V2__WAIT_RESPONSE__INIT;
  Google__Protobuf__Timestamp ts = reply_timestamp (exited_at);
  resp.exit_status = exit_status;
  resp.exited_at = &ts;
  return reply_msg (&resp.base, out, len, err);
}

int
reply_waits_add (struct reply_waits *w, int fd, uint32_t stream, const char *what, uint8_t **out, size_t *len,
                 shim_error_t *err)
{
  if (w->n == REPLY_WAITS_MAX)
    return reply_status (TTRPC_UNAVAILABLE, out, len, err, "wait %s: %d waits already", what, REPLY_WAITS_MAX);
  w->w[w->n].fd = fd;
  w->w[w->n].stream = stream;
  w->n++;
  return 1;
}

void
reply_waits_answer (struct reply_waits *w, uint32_t exit_status, const struct timespec *exited_at,
                    const char *what)
{
  size_t i;
  for (i = 0; i < w->n; i++)
    {
      struct ttrpc_header h = { .stream_id = w->w[i].stream, .type = TTRPC_TYPE_RESPONSE };
      cleanup_free uint8_t *buf = NULL;
      size_t len;
      shim_error_t e = NULL;
      if (reply_wait (exit_status, exited_at, &buf, &len, &e) < 0
          || (h.length = (uint32_t) len, ttrpc_write_frame (w->w[i].fd, REPLY_WRITE_MS, &h, buf, &e) < 0))
        {
          log_msg (LOG_WARNING, "wait %s: no reply sent: %s", what, e->msg);
          shim_error_release (&e);
        }
    }
  w->n = 0;
}

void
reply_waits_drop (struct reply_waits *w, int fd)
{
  size_t i, j = 0;
  for (i = 0; i < w->n; i++)
    if (w->w[i].fd != fd)
      w->w[j++] = w->w[i];
  w->n = j;
}
