/* SPDX-License-Identifier: Apache-2.0 */
/* The bytes containerd (or anyone who can reach the shim's socket) sends
 * the shim v2: a stream of ttrpc frames read from a pipe, each request
 * decoded, its payload decoded as every message the task service takes,
 * and handed to the service for the methods that touch no container (no
 * task exists here: Create, which would make one, is only decoded). */
#include <fcntl.h>
#include <unistd.h>

#include "containerd/shim.pb-c.h"
#include "shimv2/task.h"
#include "shimv2/ttrpc.h"
#include "tests/fuzz/fuzz.h"

static const ProtobufCMessageDescriptor *const messages[] = {
  &containerd__task__v2__create_task_request__descriptor,
  &containerd__task__v2__state_request__descriptor,
  &containerd__task__v2__kill_request__descriptor,
  &containerd__task__v2__delete_request__descriptor,
  &containerd__task__v2__wait_request__descriptor,
  &containerd__task__v2__start_request__descriptor,
  &containerd__task__v2__pids_request__descriptor,
  &containerd__task__v2__connect_request__descriptor,
  &containerd__task__v2__shutdown_request__descriptor,
  &containerd__task__v2__exec_process_request__descriptor,
  &containerd__task__v2__close_iorequest__descriptor,
  &containerd__task__v2__update_task_request__descriptor,
};

static void
one_request (struct task_service *s, const uint8_t *buf, size_t len)
{
  Ttrpc__Request *req = NULL;
  shim_error_t err = NULL;
  uint8_t *resp = NULL;
  size_t n = 0, i;

  if (ttrpc_request_decode (buf, len, &req, &err) < 0)
    {
      fuzz_check_error (-1, &err);
      return;
    }
  for (i = 0; i < sizeof messages / sizeof messages[0]; i++)
    {
      ProtobufCMessage *m = protobuf_c_message_unpack (messages[i], NULL, req->payload.len, req->payload.data);
      if (m)
        protobuf_c_message_free_unpacked (m, NULL);
    }
  if (strcmp (req->method, "Create") != 0 && task_handle (s, -1, 1, req, &resp, &n, &err) == 0)
    {
      Ttrpc__Response *r = ttrpc__response__unpack (NULL, n, resp);
      /* What the service answers must decode as a ttrpc.Response. */
      if (r == NULL)
        abort ();
      ttrpc__response__free_unpacked (r, NULL);
    }
  shim_error_release (&err);
  free (resp);
  ttrpc__request__free_unpacked (req, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct events_target ev = { 0 };
  struct task_service s;
  struct ttrpc_header h;
  int fds[2];

  /* Under a pipe's buffer: written whole before it is read. */
  if (size > 60000 || pipe2 (fds, O_CLOEXEC) < 0)
    return 0;
  if (write (fds[1], data, size) != (ssize_t) size)
    abort ();
  close (fds[1]);
  task_service_init (&s, "/nonexistent", &ev);
  for (;;)
    {
      uint8_t *payload = NULL;
      shim_error_t err = NULL;
      int r = ttrpc_read_frame (fds[0], 0, &h, &payload, &err);
      if (r <= 0)
        {
          fuzz_check_error (r, &err);
          break;
        }
      if (h.type == TTRPC_TYPE_REQUEST)
        one_request (&s, payload, h.length);
      free (payload);
    }
  close (fds[0]);
  task_service_release (&s);
  return 0;
}
