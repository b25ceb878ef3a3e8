/* SPDX-License-Identifier: Apache-2.0 */
/* The shim v2's terminals and Stats without a container: a pty master
 * handed over the console socket as the runtime hands it (SCM_RIGHTS),
 * then copied both ways by the loop's calls (console_pollfds, then
 * console_polled) between FIFOs standing for containerd's; the stdin
 * FIFO's end stopping the input only; ResizePty's window size as the
 * slave sees it; the output left in the pty at the exit drained, the
 * slave's hangup ending it; ResizePty's answers for unknown ids and for
 * processes without a terminal; and Stats' Metrics decoded back, v1 and
 * v2, with their type URLs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "common/util.h"
#include "containerd/cgroups_v1.pb-c.h"
#include "containerd/cgroups_v2.pb-c.h"
#include "containerd/shim.pb-c.h"
#include "shimv2/console.h"
#include "shimv2/metrics.h"
#include "shimv2/task.h"
#include "shimv2/ttrpc.h"
#include "shimv2_call.h"
#include "tap.h"

static char dir[] = "/tmp/test_shimv2_tty.XXXXXX";

/* The runtime's side: connect to PATH, send FD with SCM_RIGHTS. */
static int
send_master (const char *path, int fd)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  char name[] = "/dev/pts/x";
  struct iovec iov = { .iov_base = name, .iov_len = sizeof name };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c;
  cleanup_close int s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  memset (&u, 0, sizeof u);
  c = CMSG_FIRSTHDR (&mh);

  snprintf (sa.sun_path, sizeof sa.sun_path, "%s", path);
  if (s < 0 || connect (s, (struct sockaddr *) &sa, sizeof sa) < 0)
    return -1;
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof (int));
  return sendmsg (s, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* One turn of the shim's loop for C alone, waiting at most 2 s. */
static void
turn (struct console *c)
{
  struct pollfd p[CONSOLE_POLLFDS];
  console_pollfds (c, p);
  if (poll (p, CONSOLE_POLLFDS, 2000) > 0)
    console_polled (c, p);
}

/* Turns of the loop until FD (non-blocking) has read WANT whole into BUF,
 * 50 turns at most: whether it did. */
static bool
pump_until (struct console *c, int fd, const char *want, char *buf, size_t size)
{
  size_t got = 0;
  int i;

  buf[0] = '\0';
  for (i = 0; i < 50 && strstr (buf, want) == NULL; i++)
    {
      ssize_t n;
      turn (c);
      while (got < size - 1 && (n = read (fd, buf + got, size - 1 - got)) > 0)
        got += (size_t) n;
      buf[got] = '\0';
    }
  return strstr (buf, want) != NULL;
}

static void
test_console (void)
{
  char in_path[256], out_path[256], buf[4096];
  cleanup_free char *sock = NULL;
  cleanup_close int lfd = -1, ptm = -1, pts = -1, in_w = -1, out_r = -1;
  struct console c;
  struct winsize ws = { 0 };
  struct termios t;
  shim_error_t e = NULL;
  struct stat sb;

  console_init (&c);
  ok (!console_active (&c), "a console before its start is inactive");
  snprintf (in_path, sizeof in_path, "%s/stdin", dir);
  snprintf (out_path, sizeof out_path, "%s/stdout", dir);
  mkfifo (in_path, 0600);
  mkfifo (out_path, 0600);
  ok (console_socket_open (dir, &sock, &lfd, &e) == 0 && sock && lfd >= 0, "the console socket is made");
  ok (sock && stat (sock, &sb) == 0 && S_ISSOCK (sb.st_mode), "in the directory given, as a socket");
  {
    int master = -1;
    ok (console_receive (lfd, &master, &e) < 0, "nothing sent yet: console_receive fails, at once");
    has_str (e ? e->msg : "", "did not connect", "and says the runtime did not connect");
    shim_error_release (&e);
  }
  ptm = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (ptm < 0 || grantpt (ptm) < 0 || unlockpt (ptm) < 0)
    {
      ok (0, "a pty: %s", strerror (errno));
      return;
    }
  pts = open (ptsname (ptm), O_RDWR | O_NOCTTY | O_CLOEXEC);
  /* Raw, so that what goes through is what was written. */
  tcgetattr (pts, &t);
  cfmakeraw (&t);
  tcsetattr (pts, TCSANOW, &t);
  /* The shim's own writer on stdin (spawn_stdin_holder) and containerd's
   * ends, all non-blocking. */
  in_w = open (in_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  out_r = open (out_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ok (send_master (sock, ptm) == 0, "the runtime's side sends the master");
  close (steal_fd (&ptm));
  {
    char *path_kept = strdup (sock);
    ok (console_attach (&c, &sock, &lfd, in_path, out_path, &e) == 0, "console_attach: the master received%s%s",
        e ? ": " : "", e ? e->msg : "");
    shim_error_release (&e);
    ok (sock == NULL && lfd < 0 && access (path_kept, F_OK) < 0, "and the socket closed and removed");
    free (path_kept);
  }
  ok (console_active (&c), "the console is live");

  /* Output: the slave's writes reach the stdout FIFO. */
  ok (write (pts, "hello from the pty\n", 19) == 19, "the process writes to its terminal");
  ok (pump_until (&c, out_r, "hello from the pty", buf, sizeof buf), "its output reaches the stdout FIFO: %s", buf);
  /* Input: the stdin FIFO's bytes reach the slave. */
  fcntl (pts, F_SETFL, O_NONBLOCK);
  ok (write (in_w, "typed", 5) == 5, "containerd writes to stdin");
  ok (pump_until (&c, pts, "typed", buf, sizeof buf), "the process reads it from its terminal: %s", buf);

  /* ResizePty's ioctl: the slave sees the new size. */
  ok (console_resize (&c, 132, 43, &e) == 0, "console_resize 132x43");
  shim_error_release (&e);
  ok (ioctl (pts, TIOCGWINSZ, &ws) == 0 && ws.ws_col == 132 && ws.ws_row == 43,
      "the process's terminal is 132 columns by 43 rows (%u x %u)", ws.ws_col, ws.ws_row);

  /* stdin's end (CloseIO and containerd's writer gone): the input stops,
   * the output goes on. */
  close (steal_fd (&in_w));
  turn (&c);
  ok (c.in < 0 && c.master >= 0, "at stdin's end: the stdin copy ends, the terminal stays");
  ok (write (pts, "still here\n", 11) == 11 && pump_until (&c, out_r, "still here", buf, sizeof buf),
      "the output still reaches the stdout FIFO");

  /* The exit: output left in the pty, the slave closed, then the drain
   * copies it all without a turn of the loop. */
  ok (write (pts, "last words\n", 11) == 11, "the process writes its last words and exits");
  close (steal_fd (&pts));
  console_drain (&c, 2000);
  {
    ssize_t n = read (out_r, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    has_str (buf, "last words", "the drain copied them to the stdout FIFO");
    ok (read (out_r, buf, 1) == 0, "and the shim's writer is closed: containerd's reader sees the end");
  }
  ok (!console_active (&c) && c.in < 0 && c.out < 0 && c.master >= 0,
      "after the drain: no copying, the FIFOs closed, the master kept");
  ok (console_resize (&c, 80, 24, &e) == 0, "a resize after the exit is no error (as runc's shim)");
  shim_error_release (&e);
  console_close (&c);
  ok (console_resize (&c, 80, 24, &e) < 0 && e && e->status == ENOTTY, "once closed: ENOTTY");
  shim_error_release (&e);
  unlink (in_path);
  unlink (out_path);
}

static void
test_resize_pty (void)
{
  struct events_target ev = { 0 };
  struct task_service s;
  Containerd__Task__V2__ResizePtyRequest rz = CONTAINERD__TASK__V2__RESIZE_PTY_REQUEST__INIT;
  Containerd__Task__V2__ExecProcessRequest er = CONTAINERD__TASK__V2__EXEC_PROCESS_REQUEST__INIT;
  Google__Protobuf__Any spec = GOOGLE__PROTOBUF__ANY__INIT;
  const char *json = "{\"args\":[\"/bin/true\"],\"cwd\":\"/\"}";
  Ttrpc__Response *r;
  int ret;

  task_service_init (&s, dir, &ev);
  rz.id = (char *) "c1";
  rz.width = 80;
  rz.height = 24;
  is_int (shimv2_code_of (shimv2_call_fd (&s, -1, TASK_SERVICE, "ResizePty", &rz.base, &ret)), TTRPC_NOT_FOUND,
          "ResizePty with no task: NotFound");
  /* A task made up: a bundle, no container. */
  s.id = strdup ("c1");
  s.bundle = strdup (dir);
  r = shimv2_call_fd (&s, -1, TASK_SERVICE, "ResizePty", &rz.base, &ret);
  has_str (r && r->status ? r->status->message : "", "no terminal", "ResizePty of init without a terminal: says so");
  is_int (shimv2_code_of (r), TTRPC_FAILED_PRECONDITION, "and is FailedPrecondition");
  rz.exec_id = (char *) "nope";
  r = shimv2_call_fd (&s, -1, TASK_SERVICE, "ResizePty", &rz.base, &ret);
  has_str (r && r->status ? r->status->message : "", "nope", "ResizePty of an unknown exec id: names it");
  is_int (shimv2_code_of (r), TTRPC_NOT_FOUND, "and is NotFound");
  er.id = (char *) "c1";
  er.exec_id = (char *) "e1";
  er.stdin = er.stdout = er.stderr = (char *) "";
  spec.value.data = (uint8_t *) json;
  spec.value.len = strlen (json);
  er.spec = &spec;
  is_int (shimv2_code_of (shimv2_call_fd (&s, -1, TASK_SERVICE, "Exec", &er.base, &ret)), TTRPC_OK, "Exec e1");
  rz.exec_id = (char *) "e1";
  is_int (shimv2_code_of (shimv2_call_fd (&s, -1, TASK_SERVICE, "ResizePty", &rz.base, &ret)),
          TTRPC_FAILED_PRECONDITION, "ResizePty of e1, no terminal: FailedPrecondition");
  rz.id = (char *) "other";
  is_int (shimv2_code_of (shimv2_call_fd (&s, -1, TASK_SERVICE, "ResizePty", &rz.base, &ret)), TTRPC_NOT_FOUND,
          "ResizePty of another task: NotFound");
  {
    Containerd__Task__V2__StatsRequest sr = CONTAINERD__TASK__V2__STATS_REQUEST__INIT;
    sr.id = (char *) "c1";
    r = shimv2_call_fd (&s, -1, TASK_SERVICE, "Stats", &sr.base, &ret);
    has_str (r && r->status ? r->status->message : "", "stats", "Stats of a task without a container: says stats");
    is_int (shimv2_code_of (r), TTRPC_NOT_FOUND, "and is NotFound");
  }
  task_service_release (&s);
}

/* metrics_reply's answer unpacked: the Any (its type URL in URL), its
 * value in a malloc'd copy. */
static ProtobufCBinaryData
stats_any (const struct runtime_stats *st, char *url, size_t url_size)
{
  ProtobufCBinaryData v = { 0, NULL };
  cleanup_free uint8_t *out = NULL;
  size_t len = 0;
  shim_error_t e = NULL;
  Ttrpc__Response *r;
  Containerd__Task__V2__StatsResponse *sr = NULL;

  url[0] = '\0';
  if (metrics_reply (st, &out, &len, &e) < 0)
    {
      diag ("metrics_reply: %s", e->msg);
      shim_error_release (&e);
      return v;
    }
  r = ttrpc__response__unpack (NULL, len, out);
  if (r && !r->status)
    sr = containerd__task__v2__stats_response__unpack (NULL, r->payload.len, r->payload.data);
  if (sr && sr->stats)
    {
      snprintf (url, url_size, "%s", sr->stats->type_url);
      v.len = sr->stats->value.len;
      v.data = malloc (v.len + 1);
      memcpy (v.data, sr->stats->value.data, v.len);
    }
  if (sr)
    containerd__task__v2__stats_response__free_unpacked (sr, NULL);
  if (r)
    ttrpc__response__free_unpacked (r, NULL);
  return v;
}

static void
stat_add (struct runtime_stats *st, const char *key, uint64_t v)
{
  snprintf (st->memory_stat[st->n_memory_stat].key, sizeof st->memory_stat[0].key, "%s", key);
  st->memory_stat[st->n_memory_stat++].value = v;
}

static void
test_metrics (void)
{
  struct runtime_stats *st = calloc (1, sizeof *st);
  char url[128];
  ProtobufCBinaryData v;

  st->cg.cpu_total = 5000000;
  st->cg.cpu_user = 3000000;
  st->cg.cpu_kernel = 2000000;
  st->cg.memory_usage = 10 << 20;
  st->cg.memory_max_usage = 12 << 20;
  st->cg.pids_current = 3;
  stat_add (st, "anon", 1 << 20);
  stat_add (st, "inactive_file", 4 << 20);
  stat_add (st, "pgfault", 77);
  stat_add (st, "total_inactive_file", 5 << 20);
  stat_add (st, "total_pgfault", 99);
  stat_add (st, "hierarchical_memory_limit", 9223372036854771712ULL);

  v = stats_any (st, url, sizeof url);
  is_str (url, "io.containerd.cgroups.v2.Metrics", "cgroup v2: the Any is io.containerd.cgroups.v2.Metrics");
  {
    Io__Containerd__Cgroups__V2__Metrics *m = io__containerd__cgroups__v2__metrics__unpack (NULL, v.len, v.data);
    ok (m && m->cpu && m->cpu->usage_usec == 5000 && m->cpu->user_usec == 3000 && m->cpu->system_usec == 2000,
        "v2 cpu: usage_usec, user_usec, system_usec in microseconds");
    ok (m && m->memory && m->memory->usage == 10 << 20 && m->memory->inactive_file == 4 << 20
            && m->memory->anon == 1 << 20 && m->memory->pgfault == 77 && m->memory->max_usage == 12 << 20,
        "v2 memory: usage, max_usage, and memory.stat's inactive_file, anon, pgfault by name");
    ok (m && m->memory && m->memory->usage_limit == UINT64_MAX && m->pids && m->pids->limit == UINT64_MAX
            && m->pids->current == 3,
        "v2: no limit is the largest uint64, as containerd's cgroup2 library reads \"max\"; pids current");
    if (m)
      io__containerd__cgroups__v2__metrics__free_unpacked (m, NULL);
  }
  free (v.data);

  st->v1 = true;
  st->cg.pids_limit = 64;
  v = stats_any (st, url, sizeof url);
  is_str (url, "io.containerd.cgroups.v1.Metrics", "cgroup v1: the Any is io.containerd.cgroups.v1.Metrics");
  {
    Io__Containerd__Cgroups__V1__Metrics *m = io__containerd__cgroups__v1__metrics__unpack (NULL, v.len, v.data);
    ok (m && m->cpu && m->cpu->usage && m->cpu->usage->total == 5000000 && m->cpu->usage->user == 3000000
            && m->cpu->usage->kernel == 2000000,
        "v1 cpu: total, user, kernel in nanoseconds");
    ok (m && m->memory && m->memory->usage && m->memory->usage->usage == 10 << 20
            && m->memory->total_inactive_file == 5 << 20 && m->memory->inactive_file == 4 << 20,
        "v1 memory: usage, total_inactive_file (CRI's working set), inactive_file");
    ok (m && m->memory && m->memory->pg_fault == 77 && m->memory->total_pg_fault == 99,
        "v1: pg_fault from memory.stat's pgfault, total_pg_fault from total_pgfault");
    ok (m && m->memory && m->memory->usage && m->memory->usage->limit == 9223372036854771712ULL,
        "v1: no memory limit is the kernel's own figure");
    ok (m && m->pids && m->pids->current == 3 && m->pids->limit == 64, "v1 pids: current and limit");
    if (m)
      io__containerd__cgroups__v1__metrics__free_unpacked (m, NULL);
  }
  free (v.data);
  free (st);
}

int
main (void)
{
  if (mkdtemp (dir) == NULL)
    return 1;
  test_console ();
  test_resize_pty ();
  test_metrics ();
  {
    char f[256];
    snprintf (f, sizeof f, "%s/exec-e1.json", dir);
    unlink (f);
  }
  ok (rmdir (dir) == 0, "the test's directory is left empty");
  return done_testing ();
}
