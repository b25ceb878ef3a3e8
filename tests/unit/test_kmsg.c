/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel-log witness (verdict/kmsg.h): records as /dev/kmsg gives them
 * (the fixtures under tests/unit/fixtures/kmsg/, one captured on this
 * project's host, the others in the kernel's format from mm/oom_kill.c and
 * mm/memcontrol.c), the joining of summaries and victims, the JSON, and the
 * real /dev/kmsg: a forged line is ignored, a real OOM kill is seen (as
 * root, with a cgroup v1 memory hierarchy).  Run from the repo root. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/json.h"
#include "common/util.h"
#include "tap.h"
#include "evidence/kmsg_evidence.h"
#include "evidence/kmsg_reader.h"

#define FIXTURES "tests/unit/fixtures/kmsg/"

static struct kmsg_evidence ev;
static struct kmsg_reader rd;

/* A reader without /dev/kmsg, for fixtures. */
static void
fake_reader (const char *cgroup)
{
  memset (&rd, 0, sizeof rd);
  memset (&ev, 0, sizeof ev);
  rd.fd = -1;
  snprintf (rd.cgroup, sizeof rd.cgroup, "%s", cgroup);
  ev.access = KMSG_READ;
}

/* Feed a fixture's records: a record starts at a line that does not start
 * with a space (the " KEY=VALUE" lines belong to the one before). */
static void
feed_file (const char *name, const char *cgroup)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *buf = NULL;
  char path[256];
  size_t len = 0, start = 0, i;

  fake_reader (cgroup);
  snprintf (path, sizeof path, FIXTURES "%s", name);
  if (util_read_file_at (AT_FDCWD, path, &buf, &len, &err) < 0)
    {
      ok (0, "read %s: %s", path, err->msg);
      return;
    }
  for (i = 0; i < len; i++)
    if (buf[i] == '\n' && (i + 1 == len || buf[i + 1] != ' '))
      {
        kmsg_reader_feed (&rd, buf + start, i + 1 - start, &ev);
        start = i + 1;
      }
}

static int
parse (const char *rec, struct kmsg_oom_kill *k)
{
  return kmsg_parse_record (rec, strlen (rec), k);
}

static void
test_parse_real (void)
{
  struct kmsg_oom_kill k;

  /* Captured on 6.18 with a cgroup v1 memory hierarchy. */
  ok (parse ("6,691,11869170274,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
             "mems_allowed=0,oom_memcg=/shim-kmsg-fixture,task_memcg=/shim-kmsg-fixture/box,"
             "task=memhog_k,pid=24500,uid=0\n",
             &k) == 1,
      "summary parses");
  ok (k.have_summary && !k.have_victim && k.memcg, "summary: memcg constraint");
  is_str (k.oom_memcg, "/shim-kmsg-fixture", "summary: oom_memcg");
  is_str (k.task_memcg, "/shim-kmsg-fixture/box", "summary: task_memcg");
  is_str (k.comm, "memhog_k", "summary: comm");
  is_int (k.pid, 24500, "summary: pid");
  is_int (k.uid, 0, "summary: uid");
  is_int (k.seq, 691, "summary: seq");

  ok (parse ("3,692,11869170285,-;Memory cgroup out of memory: Killed process 24500 (memhog_k) "
             "total-vm:33768kB, anon-rss:32640kB, file-rss:600kB, shmem-rss:0kB, UID:0 "
             "pgtables:100kB oom_score_adj:0\n",
             &k) == 1,
      "victim parses");
  ok (k.have_victim && !k.have_summary, "victim: flags");
  is_int (k.pid, 24500, "victim: pid");
  is_str (k.comm, "memhog_k", "victim: comm");
  is_int (k.total_vm_kb, 33768, "victim: total-vm");
  is_int (k.anon_rss_kb, 32640, "victim: anon-rss");
  is_int (k.file_rss_kb, 600, "victim: file-rss");
  is_int (k.shmem_rss_kb, 0, "victim: shmem-rss");

  ok (parse ("6,2238,7203405,-;Tasks in /shim/c1 are going to be killed due to memory.oom.group "
             "set\n",
             &k) == 1,
      "group record parses");
  is_str (k.oom_group, "/shim/c1", "group record: its cgroup");
  ok (parse ("6,1,2,-;Linux version 6.18.44\n", &k) == 0, "another message is not an OOM record");
}

static void
summary_is (const char *rec, const char *desc, const char *oom, const char *task,
            const char *comm, int64_t pid)
{
  struct kmsg_oom_kill k;

  ok (parse (rec, &k) == 1, "summary: %s", desc);
  is_str (k.oom_memcg, oom, "  %s: oom_memcg", desc);
  is_str (k.task_memcg, task, "  %s: task_memcg", desc);
  is_str (k.comm, comm, "  %s: comm", desc);
  is_int (k.pid, pid, "  %s: pid", desc);
}

static void
test_parse_names (void)
{
  struct kmsg_oom_kill k;

  /* A comm with spaces, parentheses and ") total-vm:" itself (15 bytes). */
  ok (parse ("3,9,9,-;Out of memory: Killed process 77 (a) total-vm:b c) total-vm:9kB, "
             "anon-rss:8kB, file-rss:7kB, shmem-rss:6kB, UID:1000 pgtables:1kB oom_score_adj:0\n",
             &k) == 1,
      "victim: comm holding ') total-vm:'");
  is_str (k.comm, "a) total-vm:b c", "victim: the comm up to the last ') total-vm:'");
  is_int (k.total_vm_kb, 9, "victim: the kernel's numbers after it");
  is_int (k.uid, 1000, "victim: UID");
  /* A comm with ",task=" and ",pid=": pid and uid from the right. */
  summary_is ("6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
              "mems_allowed=0,oom_memcg=/c,task_memcg=/c/x,task=a,task=b,pid=1,pid=42,uid=7\n",
              "comm holding ',task=' and ',pid='", "/c", "/c/x", "a,task=b,pid=1", 42);
  /* A workload's sub-cgroup named "x,task_memcg=": the split that keeps the
   * task's cgroup within the OOMing one. */
  summary_is ("6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
              "mems_allowed=0,oom_memcg=/c/x,task_memcg=/b,task_memcg=/c/x,task_memcg=/b/d,"
              "task=t,pid=3,uid=0\n",
              "a path holding ',task_memcg=/'", "/c/x,task_memcg=/b", "/c/x,task_memcg=/b/d", "t",
              3);
  /* A cpuset name holding ",oom_memcg=" cannot hold a '/'. */
  summary_is ("6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=0-1,3,cpuset=e,oom_memcg=,"
              "mems_allowed=0-1,oom_memcg=/c,task_memcg=/c,task=t,pid=3,uid=0\n",
              "a cpuset name holding ',oom_memcg='", "/c", "/c", "t", 3);
  /* Escaped bytes (msg_add_ext_text) are undone. */
  summary_is ("6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
              "mems_allowed=0,oom_memcg=/c,task_memcg=/c/caf\\xc3\\xa9\\x5c,task=\\x1b[31m,"
              "pid=3,uid=0\n",
              "escaped bytes", "/c", "/c/caf\xc3\xa9\\", "\x1b[31m", 3);
  /* Without CONFIG_MEMCG and CONFIG_CPUSETS: no path to match. */
  summary_is ("6,9,9,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=kworker/0:1,"
              "pid=5,uid=0\n",
              "without memcg or cpuset", "", "", "kworker/0:1", 5);
}

static void
test_parse_garbage (void)
{
  static const char victim[] = "3,9,9,-;Memory cgroup out of memory: Killed process 24500 "
                               "(memhog) total-vm:33768kB, anon-rss:32640kB, file-rss:600kB, "
                               "shmem-rss:0kB, UID:0 pgtables:100kB oom_score_adj:0\n";
  struct kmsg_oom_kill k;
  char big[2048], rec[1024];
  size_t i;
  int parsed = 0;

  ok (kmsg_parse_record (NULL, 0, &k) == 0, "NULL record");
  ok (parse ("", &k) == 0, "empty record");
  ok (parse ("garbage without a header", &k) == 0, "no ';'");
  ok (parse ("3,x,9,-;Out of memory: Killed process 1 (a) total-vm:1kB, anon-rss:1kB, "
             "file-rss:1kB, shmem-rss:1kB\n",
             &k) == 0,
      "a bad sequence number");
  ok (parse ("3,9,9,c;Out of memory: Killed process 1 (a) total-vm:1kB, anon-rss:1kB, "
             "file-rss:1kB, shmem-rss:1kB\n",
             &k) == 0,
      "a continuation fragment");
  ok (parse ("3,9,9,-;Out of memory: Killed process 99999999999999999999999 (a) total-vm:1kB, "
             "anon-rss:1kB, file-rss:1kB, shmem-rss:1kB\n",
             &k) == 0,
      "an absurd pid");
  ok (parse ("3,9,9,-;Out of memory: Killed process 1 (a) total-vm:184467440737095516150kB, "
             "anon-rss:1kB, file-rss:1kB, shmem-rss:1kB\n",
             &k) == 0,
      "an absurd size");
  ok (parse ("3,9,9,-;Out of memory: Killed process 1 (0123456789abcdef) total-vm:1kB, "
             "anon-rss:1kB, file-rss:1kB, shmem-rss:1kB\n",
             &k) == 0,
      "a comm longer than 15 bytes");
  ok (parse ("6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
             "oom_memcg=/c,task_memcg=/c\\x00d,task=t,pid=3,uid=0\n",
             &k) == 0,
      "an escaped NUL in a path");
  memcpy (rec, victim, sizeof victim);
  rec[60] = '\0';
  ok (kmsg_parse_record (rec, sizeof victim - 1, &k) == 0, "a NUL byte in the text");
  /* Never past len: every prefix of a record parses or not, without a
   * read beyond it (the ASan build of the fuzz harness checks the bytes). */
  for (i = 0; i < sizeof victim - 1; i++)
    {
      char *cut = malloc (i ? i : 1);
      memcpy (cut, victim, i);
      parsed += kmsg_parse_record (cut, i, &k);
      free (cut);
    }
  ok (parsed > 0 && parsed < 40, "prefixes of a victim record: only the complete ones parse (%d)",
      parsed);
  /* An overlong path: not matching, never cut into a shorter one. */
  i = (size_t) snprintf (big, sizeof big,
                         "6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
                         "mems_allowed=0,oom_memcg=/shim/c1,task_memcg=/shim/c1/");
  memset (big + i, 'x', 600);
  snprintf (big + i + 600, sizeof big - i - 600, ",task=t,pid=3,uid=0\n");
  ok (parse (big, &k) == 0, "a path longer than KMSG_PATH_MAX - 1 is not an OOM record");
}

static void
test_reader_fixtures (void)
{
  feed_file ("memcg-v1-6.18.kmsg", "/shim-kmsg-fixture");
  is_int (ev.n, 1, "6.18 capture: one kill");
  ok (ev.kills[0].have_summary && ev.kills[0].have_victim,
      "6.18 capture: summary and victim joined");
  is_str (ev.kills[0].task_memcg, "/shim-kmsg-fixture/box", "6.18 capture: task_memcg");
  is_int (ev.kills[0].anon_rss_kb, 32640, "6.18 capture: anon-rss from the victim record");
  is_int (ev.kills[0].seq, 691, "6.18 capture: the summary's seq");
  is_int (ev.unattributed, 0, "6.18 capture: nothing unattributed");
  feed_file ("memcg-v1-6.18.kmsg", "/shim-kmsg-fixture/box");
  is_int (ev.n, 1, "6.18 capture: kept for the victim's own cgroup");
  feed_file ("memcg-v1-6.18.kmsg", "/shim-kmsg");
  is_int (ev.n, 0, "6.18 capture: not for a cgroup whose name is a prefix");
  feed_file ("memcg-v1-6.18.kmsg", "/other");
  ok (ev.n == 0 && ev.unattributed == 0, "6.18 capture: nothing for another cgroup");

  feed_file ("memcg-v2-6.1.kmsg", "/shim/c1");
  ok (ev.n == 1 && ev.kills[0].pid == 4121 && ev.kills[0].memcg, "6.1 format: one memcg kill");
  is_str (ev.kills[0].oom_memcg, "/shim/c1", "6.1 format: oom_memcg");

  feed_file ("host-oom.kmsg", "/shim/c1");
  ok (ev.n == 1 && !ev.kills[0].memcg && ev.kills[0].have_victim, "host OOM: kept, not memcg");
  is_str (ev.kills[0].oom_memcg, "", "host OOM: no oom_memcg");
  is_str (ev.kills[0].task_memcg, "/shim/c1", "host OOM: task_memcg");

  feed_file ("forged.kmsg", "/shim/c1");
  ok (ev.n == 0 && ev.unattributed == 0, "user-facility records are ignored");

  feed_file ("ratelimited.kmsg", "/shim/c1");
  ok (ev.n == 0 && ev.unattributed == 2, "victims without a summary: unattributed (%d)",
      (int) ev.unattributed);

  feed_file ("group-kill.kmsg", "/shim/c1");
  is_int (ev.n, 3, "group kill: the kill and two other members (the repeat skipped)");
  is_str (ev.kills[0].oom_group, "/shim/c1", "group kill: the first kill names the group");
  ok (!ev.kills[0].group_member && ev.kills[1].group_member && ev.kills[2].group_member,
      "group kill: members marked");
  ok (ev.kills[1].pid == 5100 && ev.kills[2].pid == 5130 && ev.kills[2].uid == 1000,
      "group kill: members' pids");
  is_str (ev.kills[1].oom_memcg, "/shim/c1", "group kill: members carry the OOMing cgroup");
  is_int (ev.unattributed, 0, "group kill: members are attributed");
  is_int (ev.relisted, 1, "group kill: the repeat, which oom_kill counts twice, is counted");
  feed_file ("group-kill.kmsg", "/shim/c1/a");
  ok (ev.n == 1 && ev.unattributed == 2,
      "group above the container: its members may be anyone's (n %zu, unattributed %d)", ev.n,
      (int) ev.unattributed);
  feed_file ("group-kill.kmsg", "/other");
  ok (ev.n == 0 && ev.unattributed == 0, "group kill elsewhere: nothing");
  feed_file ("group-ratelimited.kmsg", "/shim/c1");
  ok (ev.n == 2 && ev.kills[0].pid == 5100 && ev.kills[1].pid == 5130,
      "group kill without its summary: its repeat is no member (n %zu)", ev.n);
  is_int (ev.unattributed, 2, "  the kill, and a victim 2 s after the group's last member");
  /* 100 ms after the last member, but another record in between: a lone
   * victim of another OOM (its summary rate-limited), not a member. */
  feed_file ("group-then-lone.kmsg", "/shim/c1");
  ok (ev.n == 2 && ev.kills[1].pid == 5100 && ev.unattributed == 1,
      "a victim after another record is no member of the group before it (n %zu, unattributed %d)",
      ev.n, (int) ev.unattributed);
}

static void
test_reader_overlong_and_truncated (void)
{
  char rec[2048];
  size_t i;
  int n;

  fake_reader ("/shim/c1");
  n = snprintf (rec, sizeof rec, "6,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
                                 "cpuset=/,mems_allowed=0,oom_memcg=/shim/c1,task_memcg=/shim/c1/");
  memset (rec + n, 'y', 600);
  snprintf (rec + n + 600, sizeof rec - (size_t) n - 600, ",task=t,pid=3,uid=0\n");
  kmsg_reader_feed (&rd, rec, strlen (rec), &ev);
  n = snprintf (rec, sizeof rec, "3,10,10,-;Memory cgroup out of memory: Killed process 3 (t) "
                                 "total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n");
  kmsg_reader_feed (&rd, rec, (size_t) n, &ev);
  ok (ev.n == 0 && ev.unattributed == 1, "overlong path: the kill counts as unattributed");

  fake_reader ("/shim/c1");
  for (i = 0; i < KMSG_MAX_KILLS + 4; i++)
    {
      n = snprintf (rec, sizeof rec,
                    "6,%zu,%zu,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
                    "mems_allowed=0,oom_memcg=/shim/c1,task_memcg=/shim/c1,task=t,pid=%zu,uid=0\n",
                    2 * i, i, 100 + i);
      kmsg_reader_feed (&rd, rec, (size_t) n, &ev);
      n = snprintf (rec, sizeof rec,
                    "3,%zu,%zu,-;Memory cgroup out of memory: Killed process %zu (t) "
                    "total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
                    2 * i + 1, i, 100 + i);
      kmsg_reader_feed (&rd, rec, (size_t) n, &ev);
    }
  ok (ev.n == KMSG_MAX_KILLS && ev.truncated && ev.kills[0].pid == 100,
      "more kills than KMSG_MAX_KILLS: the first kept, truncated");
}

static char *
gen_json (const struct kmsg_evidence *e)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_yajl_gen yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;

  if (kmsg_evidence_gen (g, e, &err) < 0 || yajl_gen_get_buf (g, &buf, &len) != yajl_gen_status_ok)
    return NULL;
  return strndup ((const char *) buf, len);
}

/* from_tree on TEXT; returns the error message or "" */
static char *
from_text (const char *text, struct kmsg_evidence *out)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_yajl_val yajl_val v = yajl_tree_parse (text, NULL, 0);

  if (v == NULL)
    return strdup ("(unparsable)");
  if (kmsg_evidence_from_tree (v, "kmsg", out, &err) < 0)
    return strdup (err->msg);
  return strdup ("");
}

static void
test_json (void)
{
  struct kmsg_evidence back;
  cleanup_free char *json = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL, *e5 = NULL;

  feed_file ("group-kill.kmsg", "/shim/c1");
  ev.lost = true;
  ev.unattributed = 3;
  /* Bytes JSON cannot carry as they are. */
  snprintf (ev.kills[1].comm, sizeof ev.kills[1].comm, "\x1b\xff\\x");
  json = gen_json (&ev);
  ok (json != NULL, "evidence to JSON");
  has_str (json, "\"access\":\"read\"", "JSON: access");
  has_str (json, "\"comm\":\"\\\\x1b\\\\xff\\\\x5cx\"",
           "JSON: the comm escaped as the kernel does");
  e1 = from_text (json, &back);
  is_str (e1, "", "JSON back");
  ok (memcmp (&back, &ev, sizeof back) == 0, "JSON round trip is exact");

  e2 = from_text ("null", &back);
  ok (e2[0] == '\0' && back.access == KMSG_NOT_READ, "null: not read");
  e3 = from_text ("{\"access\":\"read\",\"lost\":1}", &back);
  is_str (e3, "kmsg.lost: not a boolean", "a wrong type names the key and where");
  e4 = from_text ("{\"access\":\"read\",\"kills\":[{\"pid\":\"5\"}]}", &back);
  has_str (e4, "kmsg.kills[0].pid: not an integer", "a kill's wrong type names it");
  e5 = from_text ("{\"access\":\"maybe\"}", &back);
  has_str (e5, "kmsg.access: unknown value", "an unknown access");
}

static void
test_path_within (void)
{
  ok (kmsg_path_within ("/a", "/a") && kmsg_path_within ("/a/b", "/a"), "/a holds /a and /a/b");
  ok (!kmsg_path_within ("/ab", "/a") && !kmsg_path_within ("/", "/a"),
      "/a holds neither /ab nor /");
  ok (kmsg_path_within ("/x", "/"), "/ holds everything");
}

static void
test_open_errors (void)
{
  char longp[KMSG_PATH_MAX + 8];

  kmsg_reader_open (&rd, "relative", &ev);
  ok (ev.access == KMSG_DENIED && ev.error == EINVAL && rd.fd == -1, "a relative cgroup: denied");
  memset (longp, 'a', sizeof longp);
  longp[0] = '/';
  longp[sizeof longp - 1] = '\0';
  kmsg_reader_open (&rd, longp, &ev);
  ok (ev.access == KMSG_DENIED && ev.error == ENAMETOOLONG, "a cgroup too long: denied");
}

/* Without CAP_SYSLOG under dmesg_restrict the log cannot be read: the
 * reader says so (EPERM) instead of failing. */
static void
test_denied (void)
{
  cleanup_free char *restrict_ = NULL;
  cleanup_error shim_error_t err = NULL;
  int status = -1;
  pid_t pid;

  if (geteuid () != 0
      || util_read_file_at (AT_FDCWD, "/proc/sys/kernel/dmesg_restrict", &restrict_, NULL, &err) < 0
      || restrict_[0] != '1')
    {
      ok (1, "# SKIP denied: needs root and kernel.dmesg_restrict=1");
      return;
    }
  pid = fork ();
  if (pid == 0)
    {
      cap_value_t drop[] = { CAP_SYSLOG, CAP_SYS_ADMIN };
      cap_t c = cap_get_proc ();
      int set;
      if (c == NULL)
        _exit (2);
      set = cap_set_flag (c, CAP_EFFECTIVE, 2, drop, CAP_CLEAR) == 0 && cap_set_proc (c) == 0;
      /* Freed before the child's exit: valgrind counts what it leaks. */
      cap_free (c);
      if (!set)
        _exit (2);
      kmsg_reader_open (&rd, "/shim/c1", &ev);
      kmsg_reader_close (&rd);
      _exit (ev.access == KMSG_DENIED && ev.error == EPERM && rd.fd == -1 ? 0 : 1);
    }
  waitpid (pid, &status, 0);
  ok (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "without CAP_SYSLOG: access denied, EPERM (status %d)", status);
}

/* Write to /dev/kmsg what the kernel writes, as a process can: it gets a
 * user facility and must be ignored. */
static void
test_real_forged (void)
{
  char cg[64], line[512], buf[8192];
  int wfd, probe, seen = 0, n;

  snprintf (cg, sizeof cg, "/shim-kmsg-forged-%d", getpid ());
  kmsg_reader_open (&rd, cg, &ev);
  if (ev.access != KMSG_READ)
    {
      ok (1, "# SKIP /dev/kmsg not readable here (access %d, %s)", ev.access, strerror (ev.error));
      return;
    }
  probe = open ("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  lseek (probe, 0, SEEK_END);
  wfd = open ("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  ok (wfd >= 0, "open /dev/kmsg for writing");
  n = snprintf (line, sizeof line,
                "<0>oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
                "oom_memcg=%s,task_memcg=%s,task=forger,pid=%d,uid=0\n",
                cg, cg, getpid ());
  ok (write (wfd, line, (size_t) n) == n, "write a forged summary");
  n = snprintf (line, sizeof line,
                "<3>Memory cgroup out of memory: Killed process %d (forger) total-vm:1kB, "
                "anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0\n",
                getpid ());
  ok (write (wfd, line, (size_t) n) == n, "write a forged victim record");
  close (wfd);
  kmsg_reader_collect (&rd, &ev);
  ok (ev.n == 0 && ev.unattributed == 0, "forged records: nothing kept, nothing unattributed");
  /* They were in the log, with facility 1 (PRI 8 and 11). */
  while ((n = (int) read (probe, buf, sizeof buf - 1)) > 0 || (n < 0 && errno == EPIPE))
    if (n > 0)
      {
        buf[n] = '\0';
        if (strstr (buf, "forger") && (strncmp (buf, "8,", 2) == 0 || strncmp (buf, "11,", 3) == 0))
          seen++;
      }
  close (probe);
  is_int (seen, 2, "the forged records were read, with facility 1");
  kmsg_reader_close (&rd);
}

/* A real OOM kill in a cgroup v1 memory cgroup (this host's hybrid
 * layout): the kernel prints the v1 path. */
static int
real_oom_once (const char *cg, const char *dir, pid_t *child)
{
  struct pollfd p;
  int status, i;

  kmsg_reader_open (&rd, cg, &ev);
  if (ev.access != KMSG_READ)
    return -1;
  *child = fork ();
  if (*child == 0)
    {
      char procs[300], pid[32];
      int fd;
      snprintf (procs, sizeof procs, "%s/cgroup.procs", dir);
      snprintf (pid, sizeof pid, "%d", getpid ());
      fd = open (procs, O_WRONLY | O_CLOEXEC);
      if (fd < 0 || write (fd, pid, strlen (pid)) < 0)
        _exit (3);
      close (fd);
      for (;;)
        {
          char *m = malloc (1 << 20);
          if (m)
            memset (m, 1, 1 << 20);
        }
    }
  waitpid (*child, &status, 0);
  if (!WIFSIGNALED (status) || WTERMSIG (status) != SIGKILL)
    return -2;
  /* The records are in the log before the victim dies (it is the task
   * that ran the OOM killer); bounded wait for them all the same. */
  for (i = 0; i < 20 && ev.n == 0 && ev.unattributed == 0; i++)
    {
      p.fd = kmsg_reader_fd (&rd);
      p.events = POLLIN;
      poll (&p, 1, 100);
      kmsg_reader_collect (&rd, &ev);
    }
  kmsg_reader_close (&rd);
  return 0;
}

static void
test_real_oom (void)
{
  char cg[64], dir[128];
  pid_t child = 0;
  int fd, tries, rc = 0;

  snprintf (cg, sizeof cg, "/shim-kmsg-test-%d", getpid ());
  snprintf (dir, sizeof dir, "/sys/fs/cgroup/memory%s", cg);
  if (geteuid () != 0 || access ("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) != 0)
    {
      ok (1, "# SKIP real OOM: needs root and a cgroup v1 memory hierarchy");
      return;
    }
  if (mkdir (dir, 0755) < 0 || (fd = open (strcat (strcpy ((char[160]){ 0 }, dir),
                                                   "/memory.limit_in_bytes"),
                                           O_WRONLY | O_CLOEXEC))
                                   < 0)
    {
      ok (0, "create %s: %s", dir, strerror (errno));
      return;
    }
  ok (write (fd, "33554432", 8) == 8, "limit %s to 32 MiB", cg);
  close (fd);
  /* The summary is rate-limited machine-wide (10 per 5 s): another test's
   * OOM kills can take our summary away; try again after the window. */
  for (tries = 0; tries < 3; tries++)
    {
      if (tries)
        sleep (6);
      if ((rc = real_oom_once (cg, dir, &child)) < 0 || ev.n > 0)
        break;
      diag ("attempt %d: %d unattributed (rate-limited summary?)", tries + 1,
            (int) ev.unattributed);
    }
  ok (rc == 0, "the child was OOM-killed (%d)", rc);
  is_int (ev.n, 1, "the reader saw the kill");
  is_str (ev.kills[0].task_memcg, cg, "with the v1 path as task_memcg");
  is_str (ev.kills[0].oom_memcg, cg, "and as oom_memcg");
  ok (ev.kills[0].pid == child && ev.kills[0].have_summary && ev.kills[0].have_victim
          && ev.kills[0].memcg && ev.kills[0].anon_rss_kb > 16384,
      "the victim: pid %lld, anon-rss %llu kB", (long long) ev.kills[0].pid,
      (unsigned long long) ev.kills[0].anon_rss_kb);
  ok (rmdir (dir) == 0, "remove %s", dir);
}

/* The last read of a reader that cannot read all there is (a flood past
 * its bound on records per read) marks the evidence lost: a kill may be in
 * what it never read.  A SOCK_SEQPACKET pair gives one record per read(2),
 * as /dev/kmsg does. */
static void
test_collect_end_bound (void)
{
  int sv[2];

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
    {
      ok (0, "socketpair: %s", strerror (errno));
      return;
    }
  for (unsigned bound = 3; bound <= 6; bound += 3)
    {
      fake_reader ("/shim/c1");
      rd.fd = sv[0];
      rd.max_records = bound;
      for (int i = 0; i < 5; i++)
        if (write (sv[1], "6,1,1,-;a record\n", 17) != 17)
          ok (0, "write: %s", strerror (errno));
      kmsg_reader_collect_end (&rd, &ev);
      if (bound == 3)
        ok (ev.lost, "a last read that stops at its bound with records left: lost");
      else
        ok (!ev.lost, "a last read that reads all there is: not lost");
      while (read (sv[0], (char[64]){ 0 }, 64) > 0)
        ;
    }
  close (sv[0]);
  close (sv[1]);
}

int
main (void)
{
  test_parse_real ();
  test_parse_names ();
  test_parse_garbage ();
  test_reader_fixtures ();
  test_reader_overlong_and_truncated ();
  test_collect_end_bound ();
  test_json ();
  test_path_within ();
  test_open_errors ();
  test_denied ();
  test_real_forged ();
  test_real_oom ();
  return done_testing ();
}
