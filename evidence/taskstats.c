/* SPDX-License-Identifier: Apache-2.0 */
/* init's exit code from the kernel's taskstats records (taskstats.h).  The
 * kernel facts (kernel/taskstats.c): taskstats_exit runs in do_exit after
 * the task's exit_code is set and before exit_notify, so the record is in
 * the listener's queue before init's pidfd turns readable; the record's
 * TASKSTATS_TYPE_PID is the pid in the initial pid namespace; the thread
 * that leaves a thread group last adds a TASKSTATS_TYPE_AGGR_TGID; the
 * exit code is the wait status (a signal, or the code << 8). */
#include "evidence/taskstats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/util.h"

/* How long the kernel may take to answer the family lookup and the
 * registration: it answers at once, but nothing waits unbounded. */
#define ANSWER_WAIT_MS 1000
#define BUF_SIZE 8192

struct nl_attr_iter
{
  const unsigned char *p;
  size_t left;
};

/* The next attribute of IT: its type and payload, false at the end or on
 * a malformed one. */
static bool
attr_next (struct nl_attr_iter *it, uint16_t *type, const unsigned char **data, size_t *len)
{
  struct nlattr a;

  if (it->left < NLA_HDRLEN)
    return false;
  memcpy (&a, it->p, sizeof a);
  if (a.nla_len < NLA_HDRLEN || a.nla_len > it->left)
    return false;
  *type = a.nla_type & NLA_TYPE_MASK;
  *data = it->p + NLA_HDRLEN;
  *len = a.nla_len - NLA_HDRLEN;
  size_t step = (size_t) NLA_ALIGN (a.nla_len);
  if (step >= it->left)
    it->left = 0;
  else
    {
      it->p += step;
      it->left -= step;
    }
  return true;
}

static bool
u32_of (const unsigned char *data, size_t len, uint32_t *v)
{
  if (len < sizeof *v)
    return false;
  memcpy (v, data, sizeof *v);
  return true;
}

/* One aggregate (TASKSTATS_TYPE_AGGR_PID or _TGID): its id and, for a
 * pid's, the exit code. */
static bool
aggregate (const unsigned char *data, size_t len, uint16_t id_type, uint32_t *id, uint32_t *code)
{
  struct nl_attr_iter it = { data, len };
  const unsigned char *d;
  uint16_t type;
  size_t l;
  bool have_id = false, have_code = id_type != TASKSTATS_TYPE_PID;

  while (attr_next (&it, &type, &d, &l))
    if (type == id_type)
      have_id = u32_of (d, l, id);
    else if (type == TASKSTATS_TYPE_STATS && id_type == TASKSTATS_TYPE_PID
             && l >= offsetof (struct taskstats, ac_exitcode) + sizeof (uint32_t))
      {
        memcpy (code, d + offsetof (struct taskstats, ac_exitcode), sizeof *code);
        have_code = true;
      }
  return have_id && have_code;
}

static void
feed_one (struct taskstats_watch *t, const struct nlmsghdr *h)
{
  struct nl_attr_iter it;
  const unsigned char *d;
  uint32_t pid = 0, tgid = 0, code = 0, ignored;
  bool have_pid = false, have_tgid = false;
  uint16_t type;
  size_t l;

  if (h->nlmsg_type != t->family || h->nlmsg_len < NLMSG_LENGTH (GENL_HDRLEN))
    return;
  it.p = (const unsigned char *) NLMSG_DATA (h) + GENL_HDRLEN;
  it.left = h->nlmsg_len - NLMSG_LENGTH (GENL_HDRLEN);
  while (attr_next (&it, &type, &d, &l))
    if (type == TASKSTATS_TYPE_AGGR_PID)
      have_pid = aggregate (d, l, TASKSTATS_TYPE_PID, &pid, &code);
    else if (type == TASKSTATS_TYPE_AGGR_TGID)
      have_tgid = aggregate (d, l, TASKSTATS_TYPE_TGID, &tgid, &ignored);
  if (!have_pid)
    return;
  /* The first record of init's pid is init's: the pid is not free for
   * reuse until init has been reaped, long after. */
  if (pid == t->pid && !t->leader_seen)
    {
      t->leader_seen = true;
      t->leader_code = code;
      t->leader_last = have_tgid && tgid == t->pid;
    }
  else if (pid != t->pid && have_tgid && tgid == t->pid && !t->last_seen)
    {
      t->last_seen = true;
      t->last_code = code;
    }
}

/* NLMSG_OK, with the length compared as a signed int (NLMSG_NEXT can
 * leave it negative after an unaligned last message). */
static bool
msg_ok (const struct nlmsghdr *h, int left)
{
  return left >= (int) sizeof *h && h->nlmsg_len >= sizeof *h && (int64_t) h->nlmsg_len <= left;
}

void
taskstats_watch_feed (struct taskstats_watch *t, const void *msg, size_t len)
{
  const struct nlmsghdr *h;
  int left = len > (size_t) INT32_MAX ? 0 : (int) len;

  for (h = msg; msg_ok (h, left); h = NLMSG_NEXT (h, left))
    feed_one (t, h);
}

void
taskstats_watch_collect (struct taskstats_watch *t)
{
  /* nlmsghdr-aligned, for NLMSG_NEXT's walk. */
  union
  {
    struct nlmsghdr h;
    char b[BUF_SIZE];
  } buf;

  while (t->fd >= 0)
    {
      ssize_t n = recv (t->fd, &buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0)
        taskstats_watch_feed (t, &buf, (size_t) n);
      else if (n < 0 && errno == EINTR)
        continue;
      else
        {
          /* ENOBUFS: the queue overflowed, a record may be gone. */
          if (n == 0 || errno != EAGAIN)
            t->lost = true;
          return;
        }
    }
}

int
taskstats_watch_status (const struct taskstats_watch *t, int *status)
{
  if (t->lost || !t->leader_seen)
    return 0;
  /* The group's status is its group exit code (every thread carries it)
   * or, without a group exit, the leader's own: only when the leader left
   * last, or both say the same, is it certain. */
  if (t->last_seen && !t->leader_last && t->last_code != t->leader_code)
    return 0;
  *status = (int) t->leader_code;
  return 1;
}

/* Send one generic netlink request and wait (bounded) for the kernel's
 * answer: an acknowledgement (0 or -errno in err->status) or, for a
 * family lookup, the family's id. */
static int
request (int fd, uint16_t type, uint8_t cmd, uint16_t attr, const void *val, size_t len,
         uint16_t *family_out, shim_error_t *err)
{
  union
  {
    struct nlmsghdr h;
    char b[BUF_SIZE];
  } buf;
  struct nlmsghdr *h = &buf.h;
  struct genlmsghdr *g;
  struct nlattr *a;
  struct pollfd p = { .fd = fd, .events = POLLIN };
  ssize_t n;
  int left;

  memset (&buf, 0, NLMSG_SPACE (GENL_HDRLEN + NLA_HDRLEN + NLA_ALIGN (len)));
  h->nlmsg_len = NLMSG_LENGTH (GENL_HDRLEN + NLA_HDRLEN + len);
  h->nlmsg_type = type;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  h->nlmsg_seq = 1;
  g = NLMSG_DATA (h);
  g->cmd = cmd;
  g->version = 1;
  a = (struct nlattr *) ((char *) g + GENL_HDRLEN);
  a->nla_type = attr;
  a->nla_len = (uint16_t) (NLA_HDRLEN + len);
  memcpy ((char *) a + NLA_HDRLEN, val, len);
  if (send (fd, h, h->nlmsg_len, 0) < 0)
    return shim_error_errno (err, "taskstats: send to the kernel");
  for (;;)
    {
      int r = poll (&p, 1, ANSWER_WAIT_MS);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return shim_error_plain (err, r == 0 ? ETIMEDOUT : errno, "taskstats: the kernel did not answer");
      n = recv (fd, &buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        return shim_error_errno (err, "taskstats: receive from the kernel");
      left = (int) n;
      for (h = &buf.h; msg_ok (h, left); h = NLMSG_NEXT (h, left))
        {
          if (h->nlmsg_type == NLMSG_ERROR && h->nlmsg_len >= NLMSG_LENGTH (sizeof (struct nlmsgerr)))
            {
              const struct nlmsgerr *e = NLMSG_DATA (h);
              if (e->error == 0 && (family_out == NULL || *family_out != 0))
                return 0;
              if (e->error != 0)
                return shim_error_plain (err, -e->error, "taskstats: the kernel refused %s",
                                         family_out ? "the family lookup" : "the listener");
            }
          else if (family_out && h->nlmsg_type == GENL_ID_CTRL)
            {
              struct nl_attr_iter it = { (const unsigned char *) NLMSG_DATA (h) + GENL_HDRLEN,
                                         h->nlmsg_len - NLMSG_LENGTH (GENL_HDRLEN) };
              const unsigned char *d;
              uint16_t t;
              size_t l;
              while (attr_next (&it, &t, &d, &l))
                if (t == CTRL_ATTR_FAMILY_ID && l >= sizeof (uint16_t))
                  memcpy (family_out, d, sizeof (uint16_t));
            }
        }
    }
}

/* The socket filter: pass what is not a taskstats record (the kernel's
 * answers), records whose first aggregate is not where x86-64 and arm64
 * put it (architectures that pad, parsed in full instead), init's own,
 * and records with a second aggregate (a thread group's last thread);
 * drop the rest, every other task's exit, before it is queued. */
static int
attach_filter (int fd, uint16_t family, uint32_t pid)
{
  /* Little-endian u16 at K into A, through X. */
#define LD_LE16(k)                                                                                 \
  BPF_STMT (BPF_LD | BPF_B | BPF_ABS, (k) + 1), BPF_STMT (BPF_ALU | BPF_LSH | BPF_K, 8),           \
      BPF_STMT (BPF_MISC | BPF_TAX, 0), BPF_STMT (BPF_LD | BPF_B | BPF_ABS, (k)),                  \
      BPF_STMT (BPF_ALU | BPF_OR | BPF_X, 0)
  const size_t aggr = NLMSG_HDRLEN + GENL_HDRLEN; /* the first aggregate's nlattr */
  struct sock_filter code[] = {
    /* 0 */ LD_LE16 (offsetof (struct nlmsghdr, nlmsg_type)),
    /* 5 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, family, 0, 19),
    /* 6 */ LD_LE16 (aggr + offsetof (struct nlattr, nla_type)),
    /* 11 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, TASKSTATS_TYPE_AGGR_PID, 0, 13),
    /* 12: the pid, read as BPF reads words (network order) */
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, aggr + 2 * NLA_HDRLEN),
    /* 13 */ BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, ntohl (pid), 11, 0),
    /* 14: a second aggregate: longer than the first's aligned end */
    LD_LE16 (aggr + offsetof (struct nlattr, nla_len)),
    /* 19 */ BPF_STMT (BPF_ALU | BPF_ADD | BPF_K, NLA_ALIGNTO - 1 + aggr),
    /* 20 */ BPF_STMT (BPF_ALU | BPF_AND | BPF_K, ~(uint32_t) (NLA_ALIGNTO - 1)),
    /* 21 */ BPF_STMT (BPF_MISC | BPF_TAX, 0),
    /* 22 */ BPF_STMT (BPF_LD | BPF_W | BPF_LEN, 0),
    /* 23 */ BPF_JUMP (BPF_JMP | BPF_JGT | BPF_X, 0, 1, 0),
    /* 24 */ BPF_STMT (BPF_RET | BPF_K, 0),
    /* 25 */ BPF_STMT (BPF_RET | BPF_K, 0xffffffff),
  };
#undef LD_LE16
  struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };

  return setsockopt (fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
}

/* "0-N": every CPU the kernel may ever run a task on. */
static int
possible_cpus (char *out, size_t size, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;

  if (util_read_file_at (AT_FDCWD, "/sys/devices/system/cpu/possible", &buf, &len, err) < 0)
    return -1;
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
    len--;
  if (len == 0 || len >= size)
    return shim_error_plain (err, EINVAL, "`/sys/devices/system/cpu/possible`: not a CPU list");
  memcpy (out, buf, len);
  out[len] = '\0';
  return 0;
}

int
taskstats_watch_open (struct taskstats_watch *t, uint32_t pid, shim_error_t *err)
{
  static const char name[] = TASKSTATS_GENL_NAME;
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  cleanup_close int fd = -1;
  char cpus[256];

  *t = (struct taskstats_watch){ .fd = -1, .pid = pid };
  if (pid == 0)
    return shim_error_plain (err, EINVAL, "taskstats: init's pid is not known");
  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  if (fd < 0)
    return shim_error_errno (err, "taskstats: socket (NETLINK_GENERIC)");
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return shim_error_errno (err, "taskstats: bind");
  if (request (fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, name, sizeof name,
               &t->family, err)
      < 0)
    return -1;
  /* Before the listener exists: no other task's record is ever queued. */
  if (attach_filter (fd, t->family, pid) < 0)
    return shim_error_errno (err, "taskstats: attach the socket filter");
  if (possible_cpus (cpus, sizeof cpus, err) < 0)
    return -1;
  if (request (fd, t->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus,
               strlen (cpus) + 1, NULL, err)
      < 0)
    return -1;
  t->fd = steal_fd (&fd);
  return 0;
}

void
taskstats_watch_close (struct taskstats_watch *t)
{
  /* The kernel drops a listener whose socket is gone at its next send. */
  if (t->fd >= 0)
    close (t->fd);
  t->fd = -1;
}
