/* SPDX-License-Identifier: Apache-2.0 */
/* Events to containerd through its publish binary (see events.h). */
#include "shimv2/events.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "google/protobuf/any.pb-c.h"

/* How long one publish may take: containerd answers in milliseconds; a
 * publisher stuck longer is killed, the event lost and said so. */
#define EVENTS_PUBLISH_MS 10000

int
events_any (const ProtobufCMessage *msg, Google__Protobuf__Any *any, uint8_t **value, shim_error_t *err)
{
  size_t n = protobuf_c_message_get_packed_size (msg);

  google__protobuf__any__init (any);
  *value = malloc (n ? n : 1);
  if (*value == NULL)
    return shim_error_errno (err, "events: malloc");
  any->type_url = (char *) msg->descriptor->name;
  any->value.data = *value;
  any->value.len = protobuf_c_message_pack (msg, *value);
  return 0;
}

int
events_encode (const ProtobufCMessage *msg, uint8_t **out, size_t *len, shim_error_t *err)
{
  Google__Protobuf__Any any;
  cleanup_free uint8_t *value = NULL;
  size_t n;

  if (events_any (msg, &any, &value, err) < 0)
    return -1;
  n = google__protobuf__any__get_packed_size (&any);
  *out = malloc (n);
  if (*out == NULL)
    return shim_error_errno (err, "events: malloc");
  *len = google__protobuf__any__pack (&any, *out);
  return 0;
}

/* Wait for the publisher PID through its pidfd, bounded; killed after. */
static int
wait_publisher (pid_t pid, int *status, shim_error_t *err)
{
  cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  struct pollfd p = { .fd = pidfd, .events = POLLIN };
  int r;

  if (pidfd >= 0)
    {
      do
        r = poll (&p, 1, EVENTS_PUBLISH_MS);
      while (r < 0 && errno == EINTR);
      if (r == 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, status, 0);
          return shim_error (err, ETIMEDOUT, "events: the publisher ran over %d ms: killed", EVENTS_PUBLISH_MS);
        }
    }
  while (waitpid (pid, status, 0) < 0)
    if (errno != EINTR)
      return shim_error_errno (err, "events: waitpid %d", (int) pid);
  return 0;
}

int
events_publish (const struct events_target *t, const char *topic, const ProtobufCMessage *msg,
                shim_error_t *err)
{
  cleanup_free uint8_t *buf = NULL;
  size_t len, done = 0;
  int fds[2], status;
  pid_t pid;

  if (t->publish_binary == NULL)
    return 0;
  if (events_encode (msg, &buf, &len, err) < 0)
    return -1;
  if (pipe2 (fds, O_CLOEXEC) < 0)
    return shim_error_errno (err, "events: pipe");
  pid = fork ();
  if (pid < 0)
    {
      close (fds[0]);
      close (fds[1]);
      return shim_error_errno (err, "events: fork");
    }
  if (pid == 0)
    {
      char *argv[] = { (char *) t->publish_binary, (char *) "--address", (char *) t->address,
                       (char *) "publish", (char *) "--topic", (char *) topic,
                       (char *) "--namespace", (char *) t->ns, NULL };
      if (dup2 (fds[0], 0) < 0)
        _exit (127);
      execv (t->publish_binary, argv);
      _exit (127);
    }
  close (fds[0]);
  /* The event is small (under a pipe's buffer): written whole, then EOF. */
  while (done < len)
    {
      ssize_t n = write (fds[1], buf + done, len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        break;
      done += (size_t) n;
    }
  close (fds[1]);
  if (wait_publisher (pid, &status, err) < 0)
    return -1;
  if (done < len)
    return shim_error (err, EPIPE, "events: %s: the publisher took %zu of %zu bytes", topic, done, len);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return shim_error (err, 0, "events: %s: %s publish failed (wait status %d)", topic, t->publish_binary,
                       status);
  return 0;
}

void
events_send (const struct events_target *t, const char *topic, const ProtobufCMessage *msg)
{
  int attempt;
  for (attempt = 1; attempt <= 5; attempt++)
    {
      shim_error_t e = NULL;
      struct timespec pause = { 0, 100000000L * attempt };
      if (events_publish (t, topic, msg, &e) == 0)
        return;
      log_msg (LOG_WARNING, "%s not published (attempt %d of 5): %s", topic, attempt, e->msg);
      shim_error_release (&e);
      nanosleep (&pause, NULL);
    }
}
