/* SPDX-License-Identifier: Apache-2.0 */
/* The shim v2's wire: ttrpc's 10-byte header (big-endian length and stream
 * id, type, flags) byte by byte, frames read whole or refused (over 4 MiB,
 * cut short), ttrpc.Request decoded from hand-made bytes and ttrpc.Response
 * encoded to exact bytes, errno -> gRPC code, events as a protobuf Any named
 * by the message, SHA-256 (the socket name's rule), and the task service's
 * answers that need no container: Unimplemented (Checkpoint), NotFound
 * (ResizePty, Stats of no task), a terminal Create that fails. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "containerd/events.pb-c.h"
#include "containerd/shim.pb-c.h"
#include "shimv2/events.h"
#include "shimv2/sha256.h"
#include "shimv2/task.h"
#include "shimv2/ttrpc.h"
#include "shimv2_call.h"
#include "tap.h"

static int
bytes_eq (const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
  return alen == blen && memcmp (a, b, alen) == 0;
}

static Ttrpc__Response *
call (struct task_service *s, const char *service, const char *method, const ProtobufCMessage *m)
{
  int ret;
  return shimv2_call_fd (s, -1, service, method, m, &ret);
}

#define code_of shimv2_code_of

int
main (void)
{
  {
    struct ttrpc_header h = { .length = 0x01020304, .stream_id = 5, .type = 1, .flags = 0x80 }, back;
    uint8_t buf[TTRPC_HEADER_LEN];
    const uint8_t want[] = { 1, 2, 3, 4, 0, 0, 0, 5, 1, 0x80 };
    ttrpc_header_encode (&h, buf);
    ok (memcmp (buf, want, sizeof want) == 0, "header: length and stream id big-endian, then type and flags");
    ttrpc_header_decode (want, &back);
    ok (back.length == h.length && back.stream_id == 5 && back.type == 1 && back.flags == 0x80,
        "header: decoded back");
  }
  {
    int sv[2];
    struct ttrpc_header h = { .length = 3, .stream_id = 7, .type = TTRPC_TYPE_REQUEST }, got;
    uint8_t *payload = NULL;
    cleanup_error shim_error_t e = NULL;
    uint8_t raw[TTRPC_HEADER_LEN];

    socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
    ok (ttrpc_write_frame (sv[0], 1000, &h, (const uint8_t *) "abc", &e) == 0, "frame written");
    ok (ttrpc_read_frame (sv[1], 1000, &got, &payload, &e) == 1 && got.length == 3 && got.stream_id == 7
            && memcmp (payload, "abc", 3) == 0,
        "frame read whole: header and payload");
    free (payload);
    payload = NULL;
    /* One byte over ttrpc's 4 MiB: refused before anything is allocated. */
    h.length = TTRPC_MESSAGE_MAX + 1;
    ttrpc_header_encode (&h, raw);
    write (sv[0], raw, sizeof raw);
    ok (ttrpc_read_frame (sv[1], 1000, &got, &payload, &e) < 0 && e && e->status == EMSGSIZE,
        "a frame over 4 MiB is refused (EMSGSIZE)");
    shim_error_release (&e);
    /* A frame that promises 10 bytes and ends after 3. */
    h.length = 10;
    ttrpc_header_encode (&h, raw);
    write (sv[0], raw, sizeof raw);
    write (sv[0], "abc", 3);
    close (sv[0]);
    ok (ttrpc_read_frame (sv[1], 1000, &got, &payload, &e) < 0 && e && e->status == EPROTO,
        "a frame cut short is an error (EPROTO), not a message");
    shim_error_release (&e);
    ok (ttrpc_read_frame (sv[1], 1000, &got, &payload, &e) == 0, "end of stream between frames: 0");
    close (sv[1]);
  }
  {
    /* service "svc" (1), method "M" (2), payload {08 01} (3), timeout 5 (4),
     * metadata {key "k" value "v"} (5). */
    const uint8_t raw[] = { 0x0a, 3, 's', 'v', 'c', 0x12, 1, 'M', 0x1a, 2, 0x08, 0x01, 0x20, 5,
                            0x2a, 6, 0x0a, 1, 'k', 0x12, 1, 'v' };
    const uint8_t junk[] = { 0x0a, 0x7f, 's' };
    Ttrpc__Request *req = NULL;
    cleanup_error shim_error_t e = NULL;
    ok (ttrpc_request_decode (raw, sizeof raw, &req, &e) == 0 && strcmp (req->service, "svc") == 0
            && strcmp (req->method, "M") == 0 && req->payload.len == 2 && req->timeout_nano == 5
            && req->n_metadata == 1 && strcmp (req->metadata[0]->value, "v") == 0,
        "request: service, method, payload, timeout_nano, metadata at ttrpc's field numbers");
    if (req)
      ttrpc__request__free_unpacked (req, NULL);
    req = NULL;
    ok (ttrpc_request_decode (junk, sizeof junk, &req, &e) < 0 && req == NULL && e && e->status == EPROTO,
        "request: a string longer than the message is refused");
  }
  {
    cleanup_free uint8_t *out = NULL, *out2 = NULL;
    size_t len = 0, len2 = 0;
    const uint8_t ok_want[] = { 0x12, 2, 0x08, 0x01 };
    const uint8_t err_want[] = { 0x0a, 5, 0x08, 12, 0x12, 1, 'x' };
    cleanup_error shim_error_t e = NULL;
    ttrpc_response_encode (TTRPC_OK, NULL, (const uint8_t *) "\x08\x01", 2, &out, &len, &e);
    ok (bytes_eq (out, len, ok_want, sizeof ok_want), "response: the reply's bytes as field 2, no status");
    ttrpc_response_encode (TTRPC_UNIMPLEMENTED, "x", NULL, 0, &out2, &len2, &e);
    ok (bytes_eq (out2, len2, err_want, sizeof err_want), "response: status {code 12, message} as field 1");
  }
  is_int (ttrpc_code_from_errno (ENOENT), TTRPC_NOT_FOUND, "ENOENT is NotFound");
  is_int (ttrpc_code_from_errno (EEXIST), TTRPC_ALREADY_EXISTS, "EEXIST is AlreadyExists");
  is_int (ttrpc_code_from_errno (EOPNOTSUPP), TTRPC_UNIMPLEMENTED, "EOPNOTSUPP is Unimplemented");
  is_int (ttrpc_code_from_errno (EIO), TTRPC_UNKNOWN, "anything else is Unknown");
  {
    char hex[65];
    sha256_hex ("", 0, hex);
    is_str (hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 of nothing");
    sha256_hex ("abc", 3, hex);
    is_str (hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 of abc");
    sha256_hex ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
    is_str (hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            "sha256 of 56 bytes (the padding takes a second block)");
  }
  {
    Containerd__Events__TaskOOM oom = CONTAINERD__EVENTS__TASK_OOM__INIT;
    const uint8_t want[] = { 0x0a, 25, 'c', 'o', 'n', 't', 'a', 'i', 'n', 'e', 'r', 'd', '.', 'e', 'v',
                             'e', 'n', 't', 's', '.', 'T', 'a', 's', 'k', 'O', 'O', 'M', 0x12, 3, 0x0a, 1, 'c' };
    cleanup_free uint8_t *out = NULL;
    size_t len = 0;
    cleanup_error shim_error_t e = NULL;
    oom.container_id = (char *) "c";
    events_encode (&oom.base, &out, &len, &e);
    ok (bytes_eq (out, len, want, sizeof want), "event: an Any with type URL containerd.events.TaskOOM");
  }
  is_int (task_exit_status (3 << 8), 3, "exit status: the code");
  is_int (task_exit_status (SIGKILL), 137, "exit status: 128 + the signal");
  {
    struct verdict v = { .oom_killed = VERDICT_TRUE };
    ok (task_verdict_oom (&v), "TaskOOM when the verdict says oom_killed true");
    v.oom_killed = VERDICT_NULL;
    ok (!task_verdict_oom (&v), "no TaskOOM when oom_killed is null");
    v.oom_killed = VERDICT_FALSE;
    ok (!task_verdict_oom (&v), "no TaskOOM when oom_killed is false");
  }
  {
    struct events_target ev = { 0 };
    struct task_service s;
    Containerd__Task__V2__ConnectRequest conn = CONTAINERD__TASK__V2__CONNECT_REQUEST__INIT;
    Containerd__Task__V2__StateRequest st = CONTAINERD__TASK__V2__STATE_REQUEST__INIT;
    Containerd__Task__V2__CreateTaskRequest cr = CONTAINERD__TASK__V2__CREATE_TASK_REQUEST__INIT;
    Ttrpc__Response *r;

    task_service_init (&s, "/nonexistent", &ev);
    conn.id = (char *) "c1";
    r = call (&s, TASK_SERVICE, "Connect", &conn.base);
    {
      Containerd__Task__V2__ConnectResponse *cresp
          = r && !r->status ? containerd__task__v2__connect_response__unpack (NULL, r->payload.len, r->payload.data)
                            : NULL;
      ok (cresp && cresp->shim_pid == (uint32_t) getpid (), "Connect: the shim's pid");
      if (cresp)
        containerd__task__v2__connect_response__free_unpacked (cresp, NULL);
    }
    code_of (r);
    is_int (code_of (call (&s, TASK_SERVICE, "Checkpoint", &conn.base)), TTRPC_UNIMPLEMENTED,
            "Checkpoint: Unimplemented");
    is_int (code_of (call (&s, TASK_SERVICE, "ResizePty", &conn.base)), TTRPC_NOT_FOUND,
            "ResizePty of no task: NotFound");
    is_int (code_of (call (&s, TASK_SERVICE, "Stats", &conn.base)), TTRPC_NOT_FOUND, "Stats of no task: NotFound");
    is_int (code_of (call (&s, "containerd.other.v1.X", "Connect", &conn.base)), TTRPC_UNIMPLEMENTED,
            "another service: Unimplemented");
    {
      Containerd__Task__V2__PauseRequest pr = CONTAINERD__TASK__V2__PAUSE_REQUEST__INIT;
      pr.id = (char *) "nope";
      is_int (code_of (call (&s, TASK_SERVICE, "Pause", &pr.base)), TTRPC_NOT_FOUND, "Pause of no task: NotFound");
    }
    st.id = (char *) "nope";
    is_int (code_of (call (&s, TASK_SERVICE, "State", &st.base)), TTRPC_NOT_FOUND, "State of no task: NotFound");
    is_int (code_of (call (&s, TASK_SERVICE, "State", NULL)), TTRPC_INVALID_ARGUMENT,
            "a payload that is no message: InvalidArgument");
    cr.id = (char *) "c1";
    cr.bundle = (char *) "/nonexistent";
    cr.terminal = true;
    r = call (&s, TASK_SERVICE, "Create", &cr.base);
    ok (r && r->status && r->status->code != TTRPC_UNIMPLEMENTED && r->status->code != 0,
        "Create with a terminal in a missing bundle: fails, and not as Unimplemented");
    code_of (r);
    ok (s.id == NULL && !s.terminal && !console_active (&s.console), "and no task is left half made");
    task_service_release (&s);
  }
  return done_testing ();
}
