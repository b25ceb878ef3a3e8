/* SPDX-License-Identifier: Apache-2.0 */
/* seccomp-listener SOCKET OUTDIR ERRNO: a linux.seccomp.listenerPath for
 * the tests.  Takes ONE connection (the container's init): writes the
 * message that came with the notify fd to OUTDIR/state.json and what the fd
 * is to OUTDIR/fd.  Then it fills its own accept queue, so that any later
 * connection (an `exec` whose process would get the filter too) blocks in
 * connect(2) for as long as the test wants, and touches OUTDIR/ready.
 * Finally it answers every notification with -ERRNO, appending the
 * syscall number to OUTDIR/notified, until the filter has no task left. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void
die (const char *what)
{
  perror (what);
  exit (2);
}

static void
put (const char *dir, const char *name, const char *data, size_t len, int flags)
{
  char path[4096];
  int fd;
  snprintf (path, sizeof path, "%s/%s", dir, name);
  fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0 || write (fd, data, len) != (ssize_t) len)
    die (path);
  close (fd);
}

int
main (int argc, char **argv)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  static char buf[65536];
  char cbuf[CMSG_SPACE (sizeof (int))], link[256], path[64];
  struct iovec iov = { .iov_base = buf, .iov_len = sizeof buf - 1 };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *c;
  int s, conn, filler, nfd = -1, err;
  ssize_t n;

  if (argc != 4)
    {
      fprintf (stderr, "usage: seccomp-listener SOCKET OUTDIR ERRNO\n");
      return 2;
    }
  err = atoi (argv[3]);
  if (strlen (argv[1]) >= sizeof sa.sun_path)
    die ("socket path");
  strcpy (sa.sun_path, argv[1]);
  s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0 || bind (s, (struct sockaddr *) &sa, sizeof sa) < 0 || listen (s, 0) < 0)
    die ("listen");
  put (argv[2], "listening", "", 0, O_TRUNC);
  conn = accept4 (s, NULL, NULL, SOCK_CLOEXEC);
  if (conn < 0)
    die ("accept");
  n = recvmsg (conn, &msg, MSG_CMSG_CLOEXEC);
  if (n < 0)
    die ("recvmsg");
  for (c = CMSG_FIRSTHDR (&msg); c; c = CMSG_NXTHDR (&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      memcpy (&nfd, CMSG_DATA (c), sizeof nfd);
  put (argv[2], "state.json", buf, (size_t) n, O_TRUNC);
  snprintf (path, sizeof path, "/proc/self/fd/%d", nfd);
  n = nfd >= 0 ? readlink (path, link, sizeof link - 1) : -1;
  link[n > 0 ? n : 0] = '\0';
  put (argv[2], "fd", link, strlen (link), O_TRUNC);

  /* listen(s, 0): one queued connection makes the queue full. */
  filler = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (filler < 0 || connect (filler, (struct sockaddr *) &sa, sizeof sa) < 0)
    die ("fill the accept queue");
  put (argv[2], "ready", "", 0, O_TRUNC);

  for (;;)
    {
      struct pollfd p = { .fd = nfd, .events = POLLIN };
      struct seccomp_notif req;
      struct seccomp_notif_resp resp;
      char line[32];

      if (nfd < 0 || poll (&p, 1, -1) < 0)
        return 0;
      if (p.revents & POLLHUP)
        return 0; /* no task uses the filter any more */
      memset (&req, 0, sizeof req);
      if (ioctl (nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        continue; /* the task went away meanwhile */
      memset (&resp, 0, sizeof resp);
      resp.id = req.id;
      resp.error = -err;
      (void) ioctl (nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
      snprintf (line, sizeof line, "%d\n", req.data.nr);
      put (argv[2], "notified", line, strlen (line), O_APPEND);
    }
}
