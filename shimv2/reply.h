/* SPDX-License-Identifier: Apache-2.0 */
/* The task service's answers: a ttrpc.Response (malloc'd in *out) holding
 * a reply message or a gRPC status naming what failed; and the Waits
 * answered later, when the process they wait for exits. */
#ifndef SHIMV2_REPLY_H
#define SHIMV2_REPLY_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/error.h"
#include "google/protobuf/timestamp.pb-c.h"
#include "shimv2/ttrpc.h"

#define REPLY_WAITS_MAX 64

/* Deferred Waits: the connection and the stream each answer goes to. */
struct reply_waits
{
  struct
  {
    int fd;
    uint32_t stream;
  } w[REPLY_WAITS_MAX];
  size_t n;
};

int reply_msg (const ProtobufCMessage *m, uint8_t **out, size_t *len, shim_error_t *err);
int reply_empty (uint8_t **out, size_t *len, shim_error_t *err);
int reply_status (enum ttrpc_code code, uint8_t **out, size_t *len, shim_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));
/* A libshim error *E as the reply (its errno says the code), logged, and
 * released. */
int reply_error (shim_error_t *e, const char *what, uint8_t **out, size_t *len, shim_error_t *err);

Google__Protobuf__Timestamp reply_timestamp (const struct timespec *t);

/* What a StateResponse tells of a process (init or an exec'd one). */
struct reply_state_of
{
  const char *id, *exec_id, *bundle, *stdin_path, *stdout_path, *stderr_path;
  bool terminal;
  pid_t pid;
  int status; /* CONTAINERD__V1__TYPES__STATUS__* */
  bool exited;
  uint32_t exit_status;
  const struct timespec *exited_at;
};

/* A StateResponse (the exit only once exited). */
int reply_state (const struct reply_state_of *st, uint8_t **out, size_t *len, shim_error_t *err);

/* A WaitResponse. */
int reply_wait (uint32_t exit_status, const struct timespec *exited_at, uint8_t **out, size_t *len,
                shim_error_t *err);

/* A Wait kept for later: 1 (deferred), or a reply (Unavailable) when
 * there are REPLY_WAITS_MAX already. */
int reply_waits_add (struct reply_waits *w, int fd, uint32_t stream, const char *what, uint8_t **out,
                     size_t *len, shim_error_t *err);
/* Every kept Wait answered with the exit; WHAT names the process in the
 * log when an answer cannot be sent. */
void reply_waits_answer (struct reply_waits *w, uint32_t exit_status, const struct timespec *exited_at,
                         const char *what);
/* A connection closed: its Waits dropped. */
void reply_waits_drop (struct reply_waits *w, int fd);

#endif
