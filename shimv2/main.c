/* SPDX-License-Identifier: Apache-2.0 */
/* containerd-shim-shim-v2: containerd's runtime type io.containerd.shim.v2.
 *   start   (from containerd, cwd the bundle) start the shim daemon for the
 *           task, print its socket's address, exit;
 *   delete  clean up after a shim that died: the container deleted, its
 *           rootfs unmounted, a DeleteResponse on stdout.
 * The daemon serves the task service (task.h) over ttrpc on that socket,
 * one container, as its subreaper: every exit status is its own to read. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "containerd/shim.pb-c.h"
#include "runtime/security.h"
#include "shimv2/bundle.h"
#include "shimv2/sha256.h"
#include "shimv2/task.h"
#include "shimv2/ttrpc.h"

#define PROG "containerd-shim-shim-v2"
/* containerd's state dir: the sockets of its shims are in s/. */
#define SOCKET_DIR "/run/containerd/s"
/* libshim's state, per namespace, beside runc's /run/containerd/runc/NS. */
#define STATE_ROOT "/run/containerd/shim-shim-v2"
#define CONNS_MAX 32
/* A frame is read whole once it begins, within this. */
#define FRAME_MS 5000

struct opts
{
  const char *ns, *address, *publish_binary, *id, *action;
  bool debug;
};

static int
parse_args (int argc, char **argv, struct opts *o)
{
  int i;
  memset (o, 0, sizeof *o);
  o->ns = "default";
  for (i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char **slot = NULL;
      if (a[0] != '-')
        {
          o->action = a;
          continue;
        }
      a += a[1] == '-' ? 2 : 1;
      if (strcmp (a, "debug") == 0)
        o->debug = true;
      else if (strcmp (a, "namespace") == 0)
        slot = &o->ns;
      else if (strcmp (a, "address") == 0)
        slot = &o->address;
      else if (strcmp (a, "publish-binary") == 0)
        slot = &o->publish_binary;
      else if (strcmp (a, "id") == 0)
        slot = &o->id;
      else if (strcmp (a, "bundle") == 0 || strcmp (a, "socket") == 0)
        i++; /* given by containerd versions that pass them; the cwd is the bundle */
      else
        {
          fprintf (stderr, PROG ": unknown flag %s\n", argv[i]);
          return -1;
        }
      if (slot && ++i < argc)
        *slot = argv[i];
      else if (slot)
        {
          fprintf (stderr, PROG ": %s needs a value\n", argv[i - 1]);
          return -1;
        }
    }
  if (o->action == NULL || o->id == NULL)
    {
      fprintf (stderr, "usage: " PROG " -namespace NS -address ADDR -publish-binary BIN -id ID start|delete\n");
      return -1;
    }
  return 0;
}

/* containerd 1.6's rule (runtime/v2/shim SocketAddress): the sha256 of
 * "ADDRESS/NS/ID", under its state dir's s/. */
static void
socket_path (const struct opts *o, char *out, size_t len)
{
  char key[PATH_MAX], hex[65];
  snprintf (key, sizeof key, "%s/%s/%s", o->address ? o->address : "", o->ns, o->id);
  sha256_hex (key, strlen (key), hex);
  snprintf (out, len, "%s/%s", SOCKET_DIR, hex);
}

static int
unix_addr (const char *path, struct sockaddr_un *sa, shim_error_t *err)
{
  memset (sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  if (strlen (path) >= sizeof sa->sun_path)
    return shim_error (err, ENAMETOOLONG, "socket path %s", path);
  memcpy (sa->sun_path, path, strlen (path) + 1);
  return 0;
}

/* A socket left by a shim that died is stale: nobody answers on it, and
 * it is removed.  Returns true when a shim does answer. */
static bool
socket_in_use (const char *path)
{
  struct sockaddr_un sa;
  cleanup_close int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd >= 0 && unix_addr (path, &sa, NULL) == 0 && connect (fd, (struct sockaddr *) &sa, sizeof sa) == 0)
    return true;
  unlink (path);
  return false;
}

static int
listen_on (const char *path, shim_error_t *err)
{
  struct sockaddr_un sa;
  cleanup_close int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return shim_error_errno (err, "socket");
  if (util_mkdir_all (SOCKET_DIR, 0711, err) < 0 || unix_addr (path, &sa, err) < 0)
    return -1;
  if (socket_in_use (path))
    return shim_error (err, EEXIST, "a shim already serves %s", path);
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return shim_error_errno (err, "bind %s", path);
  if (listen (fd, 16) < 0)
    return shim_error_errno (err, "listen %s", path);
  return steal_fd (&fd);
}

static void
reap (struct task_service *s)
{
  int status;
  pid_t pid;
  while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
    task_reaped (s, pid, status);
}

/* One request from FD: 0 served, -1 the connection is to be closed. */
static int
serve_one (struct task_service *s, int fd)
{
  struct ttrpc_header h, rh;
  cleanup_free uint8_t *payload = NULL, *resp = NULL;
  Ttrpc__Request *req = NULL;
  shim_error_t e = NULL;
  size_t len = 0;
  int r = ttrpc_read_frame (fd, FRAME_MS, &h, &payload, &e);

  if (r <= 0)
    goto fail;
  if (h.type != TTRPC_TYPE_REQUEST)
    return 0;
  if (ttrpc_request_decode (payload, h.length, &req, &e) < 0)
    goto fail;
  log_msg (LOG_DEBUG, "request %s.%s (stream %u)", req->service, req->method, h.stream_id);
  r = task_handle (s, fd, h.stream_id, req, &resp, &len, &e);
  ttrpc__request__free_unpacked (req, NULL);
  if (r < 0)
    goto fail;
  if (r == 1)
    return 0;
  rh = (struct ttrpc_header){ .length = (uint32_t) len, .stream_id = h.stream_id, .type = TTRPC_TYPE_RESPONSE };
  if (ttrpc_write_frame (fd, FRAME_MS, &rh, resp, &e) < 0)
    goto fail;
  return 0;
fail:
  if (e)
    {
      log_msg (LOG_WARNING, "connection dropped: %s", e->msg);
      shim_error_release (&e);
    }
  return -1;
}

static int
serve (struct task_service *s, int lfd)
{
  /* The listener, the signals, the connections, then the terminals'
   * fds (task_pollfds), refilled on every turn. */
  struct pollfd p[CONNS_MAX + 2 + TASK_POLLFDS_MAX];
  size_t n = 0, i, k;
  sigset_t mask;
  cleanup_close int sfd = -1;

  sigemptyset (&mask);
  sigaddset (&mask, SIGCHLD);
  sigprocmask (SIG_BLOCK, &mask, NULL);
  signal (SIGPIPE, SIG_IGN);
  sfd = signalfd (-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0)
    return -1;
  while (!s->shutdown)
    {
      p[0] = (struct pollfd){ .fd = lfd, .events = n < CONNS_MAX ? POLLIN : 0 };
      p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
      k = task_pollfds (s, p + 2 + n);
      if (poll (p, n + 2 + k, -1) < 0)
        {
          if (errno != EINTR)
            return -1;
          continue;
        }
      /* First, while the terminals are those the fds were taken from: a
       * reap or a request may close or remove one. */
      task_polled (s, p + 2 + n, k);
      if (p[1].revents)
        {
          struct signalfd_siginfo si;
          while (read (sfd, &si, sizeof si) > 0)
            ;
          reap (s);
        }
      for (i = 2; i < n + 2; i++)
        if (p[i].revents && serve_one (s, p[i].fd) < 0)
          {
            task_conn_closed (s, p[i].fd);
            close (p[i].fd);
            p[i--] = p[--n + 2];
          }
      if (p[0].revents & POLLIN)
        {
          int c = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC);
          if (c >= 0)
            p[2 + n++] = (struct pollfd){ .fd = c, .events = POLLIN };
        }
    }
  for (i = 2; i < n + 2; i++)
    close (p[i].fd);
  return 0;
}

static int
state_root (const struct opts *o, char *out, size_t len, shim_error_t *err)
{
  snprintf (out, len, "%s/%s", STATE_ROOT, o->ns);
  return util_mkdir_all (out, 0711, err);
}

/* The daemon: stdio to /dev/null but stderr, the bundle's log FIFO that
 * containerd reads into its own log. */
static void __attribute__ ((noreturn))
daemon_main (const struct opts *o, int lfd, const char *path)
{
  struct events_target ev = { o->publish_binary, o->address, o->ns };
  struct task_service s;
  char root[PATH_MAX];
  shim_error_t e = NULL;
  int null = open ("/dev/null", O_RDWR | O_CLOEXEC), logfd = open ("log", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

  setsid ();
  if (null >= 0)
    {
      dup2 (null, 0);
      dup2 (null, 1);
      dup2 (logfd >= 0 ? logfd : null, 2);
    }
  if (logfd >= 0)
    fcntl (2, F_SETFL, O_WRONLY);
  log_init (PROG, NULL, "text", o->debug, NULL);
  /* Every process of the container that loses its parent comes to us:
   * init's exit status is then ours to read on every kernel. */
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0 || state_root (o, root, sizeof root, &e) < 0)
    {
      if (e)
        log_error_release (&e);
      _exit (1);
    }
  task_service_init (&s, root, &ev);
  if (serve (&s, lfd) < 0)
    log_msg (LOG_ERROR, "serving %s: %m", path);
  unlink (path);
  task_service_release (&s);
  _exit (0);
}

static int
cmd_start (const struct opts *o)
{
  char path[PATH_MAX], address[PATH_MAX + 8];
  shim_error_t e = NULL;
  int lfd;
  pid_t pid;

  socket_path (o, path, sizeof path);
  lfd = listen_on (path, &e);
  if (lfd < 0)
    {
      fprintf (stderr, PROG ": %s\n", e->msg);
      shim_error_release (&e);
      return 1;
    }
  pid = fork ();
  if (pid < 0)
    {
      perror (PROG ": fork");
      return 1;
    }
  if (pid == 0)
    daemon_main (o, lfd, path);
  snprintf (address, sizeof address, "unix://%s", path);
  /* containerd reads the bundle's `address` (the cwd) when it restarts, to
   * find the shims of the tasks still running; without it they are
   * cleaned up as dead. */
  if (util_write_file_atomic_at (AT_FDCWD, "address", address, strlen (address), 0644, &e) < 0)
    {
      fprintf (stderr, PROG ": write the bundle's address: %s\n", e->msg);
      shim_error_release (&e);
      kill (pid, SIGKILL);
      unlink (path);
      return 1;
    }
  printf ("%s", address);
  return fflush (stdout) == 0 ? 0 : 1;
}

/* After a shim died: force-delete, remove its socket, unmount the rootfs,
 * and tell containerd the task ended killed (137), as runc's shim does. */
static int
cmd_delete (const struct opts *o)
{
  Containerd__Task__V2__DeleteResponse resp = CONTAINERD__TASK__V2__DELETE_RESPONSE__INIT;
  Google__Protobuf__Timestamp ts = GOOGLE__PROTOBUF__TIMESTAMP__INIT;
  struct runtime_ctx ctx = { 0 };
  struct timespec now;
  char root[PATH_MAX];
  cleanup_free uint8_t *buf = NULL;
  shim_error_t e = NULL;
  size_t n;

  /* The cwd is the bundle: its cgroupsPath says which cgroup manager made
   * the container's cgroup (bundle.h); a config that is gone is cgroupfs. */
  if (bundle_systemd_cgroup (".", &ctx.systemd_cgroup, &e) < 0)
    {
      fprintf (stderr, PROG ": delete %s: %s\n", o->id, e->msg);
      shim_error_release (&e);
    }
  if (state_root (o, root, sizeof root, &e) < 0
      || (ctx.root = root, runtime_delete (&ctx, o->id, true, &e)) < 0)
    {
      fprintf (stderr, PROG ": delete %s: %s\n", o->id, e->msg);
      shim_error_release (&e);
    }
  /* The dead shim's socket (a live one's is left alone). */
  socket_path (o, root, sizeof root);
  socket_in_use (root);
  if (umount2 ("rootfs", MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
    fprintf (stderr, PROG ": umount rootfs: %s\n", strerror (errno));
  clock_gettime (CLOCK_REALTIME, &now);
  ts.seconds = now.tv_sec;
  ts.nanos = (int32_t) now.tv_nsec;
  resp.exit_status = 128 + SIGKILL;
  resp.exited_at = &ts;
  n = containerd__task__v2__delete_response__get_packed_size (&resp);
  buf = malloc (n + 1);
  if (buf == NULL)
    return 1;
  n = containerd__task__v2__delete_response__pack (&resp, buf);
  return fwrite (buf, 1, n, stdout) == n && fflush (stdout) == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  struct opts o;

  if (parse_args (argc, argv, &o) < 0)
    return 2;
  if (strcmp (o.action, "start") == 0)
    {
      shim_error_t e = NULL;
      /* The daemon is a fork of `start`, and the container's processes
       * forks of the daemon until they exec: all are this binary until
       * then, so it runs from a copy or a mount of itself that cannot be
       * written (CVE-2019-5736), as `shim run` does. */
      if (security_reexec_protected (argv, &e) < 0)
        {
          fprintf (stderr, PROG ": %s\n", e->msg);
          shim_error_release (&e);
          return 1;
        }
      return cmd_start (&o);
    }
  if (strcmp (o.action, "delete") == 0)
    return cmd_delete (&o);
  fprintf (stderr, PROG ": unknown action %s (start, delete)\n", o.action);
  return 2;
}
