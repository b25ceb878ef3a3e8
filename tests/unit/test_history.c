/* SPDX-License-Identifier: Apache-2.0 */
/* history/: the pure parts (file names, the pruning choice, the metrics
 * text, the journal's fields, a record's round trip, matching, --since),
 * and the store written and pruned in a temporary directory. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "history/history.h"
#include "tap.h"

/* Linux 6.3's, which Debian 12's headers lack. */
#define MFD_NOEXEC_SEAL_ 0x0008U
#define F_SEAL_EXEC_ 0x0020

static struct verdict
oom_verdict (void)
{
  struct verdict v = { 0 };
  v.reason = VERDICT_OOM_KILLED;
  v.have_exit_code = true;
  v.exit_code = 137;
  v.signal = 9;
  v.oom_killed = VERDICT_TRUE;
  v.have_oom = true;
  v.oom.scope = VERDICT_SCOPE_CONTAINER;
  v.oom.kills = 1;
  v.oom.have_victims = true;
  v.oom.n_victims = 1;
  v.oom.victims[0].pid = 4121;
  strcpy (v.oom.victims[0].comm, "memhog");
  v.have_memory_limit = v.have_memory_peak = true;
  v.memory_limit = v.memory_peak = 64 << 20;
  strcpy (v.message, "container x was OOM-killed");
  return v;
}

static const char *
field (char **f, size_t n, const char *key)
{
  size_t l = strlen (key);
  for (size_t i = 0; i < n; i++)
    if (strncmp (f[i], key, l) == 0 && f[i][l] == '=')
      return f[i] + l + 1;
  return NULL;
}

static void
test_names (void)
{
  char name[96];

  history_file_name (1733450000123456789LL, 4242, 0x0badf00d, 731, name, sizeof (name));
  is_str (name, "01733450000123456789-4242-0badf00d-731.json", "file name: 20-digit ns, pid, random word, size");
  is_int (history_file_time (name), 1733450000123456789LL, "file name: its time read back");
  is_int (history_file_size (name), 731, "file name: its size read back");
  is_int (history_file_time ("01733450000123456789-4242-0badf00d.json"), 1733450000123456789LL,
          "a name without the size: still a record");
  is_int (history_file_size ("01733450000123456789-4242-12345678.json"), -1,
          "whose random word is not taken for a size");
  is_int (history_file_size ("01733450000123456789-4242-0badf00d-7x1.json"), -1, "nor a size that is not a number");
  is_int (history_file_time (".tmp-01733450000123456789-1-0.json"), -1, "a dot-file is not a record");
  is_int (history_file_time ("01733450000123456789-1-0.txt"), -1, "nor another suffix");
  is_int (history_file_time ("0173345000012345678x-1-0.json"), -1, "nor a name that is not a time");
}

static void
test_prune (void)
{
  struct history_file f[5];
  bool rm[5];
  int64_t now = 1000LL * 1000000000;
  struct history_limits l = { 0 };

  for (int i = 0; i < 5; i++)
    f[i] = (struct history_file){ .name = NULL, .size = 100, .time_ns = (100 + i * 100) * 1000000000LL };
  history_prune_choose (f, 5, &l, now, rm);
  ok (!rm[0] && !rm[1] && !rm[2] && !rm[3] && !rm[4], "no limits: nothing removed");
  l.keep_count = 3;
  history_prune_choose (f, 5, &l, now, rm);
  ok (rm[0] && rm[1] && !rm[2] && !rm[3] && !rm[4], "count 3 of 5: the two oldest removed");
  l = (struct history_limits){ .keep_bytes = 250 };
  history_prune_choose (f, 5, &l, now, rm);
  ok (rm[0] && rm[1] && rm[2] && !rm[3] && !rm[4], "250 bytes of 100-byte records: the two newest kept");
  l = (struct history_limits){ .keep_seconds = 650 };
  history_prune_choose (f, 5, &l, now, rm);
  ok (rm[0] && rm[1] && rm[2] && !rm[3] && !rm[4], "650 s: the records older than 650 s removed");
  l = (struct history_limits){ .keep_count = 1, .keep_seconds = 1 };
  history_prune_choose (f, 5, &l, now, rm);
  ok (rm[0] && rm[1] && rm[2] && rm[3] && !rm[4], "the newest is kept even when older than the limit");
  /* A large middle one: dropping stops at it, nothing older is kept. */
  f[2].size = 1000;
  l = (struct history_limits){ .keep_bytes = 500 };
  history_prune_choose (f, 5, &l, now, rm);
  ok (rm[0] && rm[1] && rm[2] && !rm[3] && !rm[4], "never one kept that is older than one removed");
}

static void
test_metrics (void)
{
  history_counts_t c = { { 0 } }, back;
  struct verdict v = oom_verdict ();
  char *text = NULL;

  c[VERDICT_OOM_KILLED][history_metrics_scope (&v)] = 3;
  v.have_oom = false;
  v.reason = VERDICT_EXITED;
  c[VERDICT_EXITED][history_metrics_scope (&v)] = 12;
  ok (history_metrics_text (c, &text) == 0, "metrics text");
  has_str (text, "# TYPE shim_container_deaths_total counter\n", "metrics: a counter");
  has_str (text, "shim_container_deaths_total{reason=\"OOMKilled\",scope=\"container\"} 3\n", "OOMKilled in the container");
  has_str (text, "shim_container_deaths_total{reason=\"Exited\",scope=\"none\"} 12\n", "Exited, no OOM scope");
  ok (strstr (text, "{reason=\"Killed\"") == NULL, "no line for a zero count");
  history_metrics_parse (text, back);
  ok (memcmp (c, back, sizeof (c)) == 0, "metrics: parsed back to the same counts");
  history_metrics_parse ("shim_container_deaths_total{reason=\"Nope\",scope=\"none\"} 5\n"
                         "shim_container_deaths_total{reason=\"Killed\",scope=\"none\"} 5x\n"
                         "shim_container_deaths_total{reason=\"Killed\",scope=\"none\"} 7",
                         back);
  ok (back[VERDICT_KILLED][0] == 0, "metrics: unknown labels, bad numbers and an unterminated line are ignored");
  free (text);
  v.have_oom = true;
  v.oom.scope = VERDICT_SCOPE_ANCESTOR;
  is_int (history_metrics_scope (&v), 2, "scope ancestor");
  v.oom.scope = VERDICT_SCOPE_NONE;
  is_int (history_metrics_scope (&v), 3, "scope nested");
}

static void
test_journal (void)
{
  struct verdict v = oom_verdict ();
  struct history_event e = { .id = "abc123", .source = "run", .v = &v, .verdict_json = "{\"reason\":\"OOMKilled\"}" };
  char **f = NULL;
  size_t n = 0;

  e.names.name = "web";
  e.names.pod = "shop";
  ok (history_journal_fields (&e, "shim", &f, &n) == 0, "journal fields");
  is_str (field (f, n, "MESSAGE"), "container abc123 (web): container x was OOM-killed", "MESSAGE");
  is_str (field (f, n, "PRIORITY"), "4", "OOMKilled: warning");
  is_str (field (f, n, "SHIM_CONTAINER_ID"), "abc123", "SHIM_CONTAINER_ID");
  is_str (field (f, n, "SHIM_CONTAINER_NAME"), "web", "SHIM_CONTAINER_NAME");
  is_str (field (f, n, "SHIM_POD_NAME"), "shop", "SHIM_POD_NAME");
  ok (field (f, n, "SHIM_POD_NAMESPACE") == NULL, "no namespace: no field");
  is_str (field (f, n, "SHIM_REASON"), "OOMKilled", "SHIM_REASON");
  is_str (field (f, n, "SHIM_OOM_KILLED"), "true", "SHIM_OOM_KILLED");
  is_str (field (f, n, "SHIM_SCOPE"), "container", "SHIM_SCOPE");
  is_str (field (f, n, "SHIM_EXIT_CODE"), "137", "SHIM_EXIT_CODE");
  is_str (field (f, n, "SHIM_SIGNAL"), "SIGKILL", "SHIM_SIGNAL");
  is_str (field (f, n, "SHIM_MEMORY_PEAK"), "67108864", "SHIM_MEMORY_PEAK");
  is_str (field (f, n, "SHIM_MEMORY_LIMIT"), "67108864", "SHIM_MEMORY_LIMIT");
  is_str (field (f, n, "SHIM_VICTIM_PID"), "4121", "SHIM_VICTIM_PID");
  is_str (field (f, n, "SHIM_VICTIM_COMM"), "memhog", "SHIM_VICTIM_COMM");
  is_str (field (f, n, "SHIM_VERDICT"), "{\"reason\":\"OOMKilled\"}", "SHIM_VERDICT");
  history_journal_fields_free (f, n);

  v = (struct verdict){ .reason = VERDICT_EXITED, .have_exit_code = true, .exit_code = 0,
                        .oom_killed = VERDICT_FALSE };
  e.names = (struct history_names){ 0 };
  ok (history_journal_fields (&e, "shim", &f, &n) == 0, "journal fields of an exit");
  is_str (field (f, n, "PRIORITY"), "6", "Exited 0: info");
  is_str (field (f, n, "SHIM_OOM_KILLED"), "false", "SHIM_OOM_KILLED false");
  ok (field (f, n, "SHIM_SIGNAL") == NULL && field (f, n, "SHIM_VICTIM_PID") == NULL
          && field (f, n, "SHIM_CONTAINER_NAME") == NULL && field (f, n, "SHIM_SCOPE") == NULL,
      "no signal, victim, name or scope: no field");
  history_journal_fields_free (f, n);
  v.exit_code = 1;
  is_int (history_journal_priority (&v), 5, "Exited 1: notice");
  v.reason = VERDICT_KILLED;
  is_int (history_journal_priority (&v), 5, "Killed: notice");
  v.reason = VERDICT_UNKNOWN;
  is_int (history_journal_priority (&v), 4, "Unknown: warning");
}

/* A journald stand-in: a datagram socket bound at DIR/socket. */
static int
journal_listener (const char *dir, char *path, size_t size)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  snprintf (path, size, "%s/socket", dir);
  if (strlen (path) >= sizeof (a.sun_path))
    return -1;
  memcpy (a.sun_path, path, strlen (path) + 1);
  if (fd < 0 || bind (fd, (struct sockaddr *) &a, sizeof (a)) < 0)
    return -1;
  return fd;
}

/* The next datagram on FD into BUF (NUL-terminated), or the content of the
 * memfd it carries; *passed_fd says which, *seals the memfd's seals. */
static ssize_t
journal_receive (int fd, char *buf, size_t size, bool *passed_fd, int *seals)
{
  union
  {
    struct cmsghdr h;
    char b[CMSG_SPACE (sizeof (int))];
  } control;
  struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
  struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                      .msg_controllen = sizeof (control.b) };
  struct cmsghdr *c;
  ssize_t n = recvmsg (fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

  *passed_fd = false;
  if (n < 0)
    return -1;
  c = CMSG_FIRSTHDR (&m);
  if (c && c->cmsg_type == SCM_RIGHTS)
    {
      int mfd;
      memcpy (&mfd, CMSG_DATA (c), sizeof (int));
      *passed_fd = true;
      *seals = fcntl (mfd, F_GET_SEALS);
      n = pread (mfd, buf, size - 1, 0);
      close (mfd);
      if (n < 0)
        return -1;
    }
  buf[n] = '\0';
  return n;
}

static void
test_journal_native (void)
{
  struct verdict v = oom_verdict ();
  struct history_event e = { .id = "abc123", .source = "run", .v = &v, .verdict_json = "{\"reason\":\"OOMKilled\"}" };
  char tmpl[] = "/tmp/shim-journal-XXXXXX", path[128], *dir = mkdtemp (tmpl);
  static char buf[1 << 20];
  size_t big_len = 300 * 1024;
  char *big = malloc (big_len + 1);
  shim_error_t err = NULL;
  bool passed = false;
  int fd, seals = 0;
  uint64_t le;
  ssize_t n;

  fd = dir ? journal_listener (dir, path, sizeof (path)) : -1;
  ok (fd >= 0 && big != NULL, "a journal socket in %s", dir ? dir : "(none)");

  ok (history_journal_send_at (path, &e, "shim", &err) == 0, "native send: %s", err ? err->msg : "sent");
  n = journal_receive (fd, buf, sizeof (buf), &passed, &seals);
  ok (n > 0 && !passed, "one datagram, inline");
  ok (strstr (buf, "MESSAGE=container abc123: container x was OOM-killed\n") != NULL, "MESSAGE=...\\n");
  ok (strstr (buf, "\nSHIM_CONTAINER_ID=abc123\n") != NULL, "SHIM_CONTAINER_ID=abc123\\n");
  ok (strstr (buf, "\nSYSLOG_IDENTIFIER=shim\n") != NULL, "SYSLOG_IDENTIFIER=shim\\n");
  ok (n > 0 && buf[n - 1] == '\n', "every field ends with a newline");

  /* A value with a newline: KEY\n, its length (64-bit little endian), the
   * value, \n. */
  e.verdict_json = "{\n}";
  ok (history_journal_send_at (path, &e, "shim", &err) == 0, "a value with a newline is sent");
  n = journal_receive (fd, buf, sizeof (buf), &passed, &seals);
  {
    char *k = memmem (buf, n > 0 ? (size_t) n : 0, "\nSHIM_VERDICT\n", 14);
    le = htole64 (3);
    ok (k != NULL && memcmp (k + 14, &le, 8) == 0 && memcmp (k + 22, "{\n}\n", 4) == 0,
        "SHIM_VERDICT in the binary form");
  }

  /* Too large for one datagram: a sealed memfd. */
  memset (big, 'x', big_len);
  big[big_len] = '\0';
  e.verdict_json = big;
  ok (history_journal_send_at (path, &e, "shim", &err) == 0, "a large message is sent: %s",
      err ? err->msg : "sent");
  n = journal_receive (fd, buf, sizeof (buf), &passed, &seals);
  ok (passed && n > (ssize_t) big_len, "it came as a memfd of %zd bytes", n);
  ok (passed && (seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)) == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE),
      "the memfd is sealed (journald reads no other)");
  ok (strstr (buf, "\nSHIM_VERDICT=xxxx") != NULL, "its content is the message");
  {
    /* Data, never executed: where the kernel knows MFD_NOEXEC_SEAL (6.3),
     * the memfd is sealed against execution too (and the kernel logs no
     * warning for it). */
    int probe = memfd_create ("probe", MFD_NOEXEC_SEAL_ | MFD_CLOEXEC);
    if (probe >= 0)
      {
        close (probe);
        ok (passed && (seals & F_SEAL_EXEC_), "the memfd is sealed against execution");
      }
    else
      ok (passed && !(seals & F_SEAL_EXEC_), "a kernel without MFD_NOEXEC_SEAL: no exec seal");
  }
  e.verdict_json = "{}";

  /* No journald: no socket, or a socket nobody reads. */
  close (fd);
  ok (history_journal_send_at (path, &e, "shim", &err) == 0 && err == NULL, "a socket nobody reads: 0");
  unlink (path);
  ok (history_journal_send_at (path, &e, "shim", &err) == 0 && err == NULL, "no socket: 0");
  rmdir (dir);
  free (big);
}

static void
test_record (void)
{
  struct verdict v = oom_verdict ();
  struct util_kv kv[] = { { "io.kubernetes.pod.name", "shop" },
                          { "io.kubernetes.cri.container-name", "web" },
                          { "io.kubernetes.pod.namespace", "prod" } };
  struct history_event e = { .id = "abc123", .source = "delete", .v = &v, .time_ns = 1733450000123456789LL };
  struct history_record r;
  char *json = NULL, *table = NULL;
  shim_error_t err = NULL;
  int64_t t;

  history_names_from_annotations (kv, 3, &e.names);
  is_str (e.names.name, "web", "names: containerd's CRI container name");
  is_str (e.names.pod, "shop", "names: the pod");
  is_str (e.names.pod_namespace, "prod", "names: the namespace");
  ok (history_record_json (&e, &json, &err) == 0, "record JSON");
  ok (history_record_parse (json, &r, &err) == 0, "record parsed back");
  is_str (r.id, "abc123", "record: id");
  is_str (r.name, "web", "record: name");
  is_str (r.reason, "OOMKilled", "record: reason from the verdict");
  is_str (r.time, "2024-12-06T01:53:20.123456789Z", "record: time");
  is_int (r.oom_killed, VERDICT_TRUE, "record: oom_killed");
  is_int (r.exit_code, 137, "record: exit_code");
  is_str (r.signal, "SIGKILL", "record: signal");
  ok (history_record_matches (&r, "abc"), "match: id prefix");
  ok (history_record_matches (&r, "web"), "match: name");
  ok (history_record_matches (&r, "shop/web") && history_record_matches (&r, "prod/shop/web"), "match: pod/name");
  ok (!history_record_matches (&r, "we") && !history_record_matches (&r, "bc"), "no match: part of a name or id");
  ok (history_format (&r, 1, false, &table) == 0, "table");
  has_str (table, "TIME                  ID       NAME   REASON      OOM_KILLED   EXIT      PEAK     SOURCE\n",
           "table: header, aligned");
  has_str (table, "2024-12-06T01:53:20   abc123   web    OOMKilled   true         SIGKILL   64 MiB   delete\n",
           "table: the row");
  free (table);
  ok (history_format (&r, 1, true, &table) == 0 && table[0] == '[' && strstr (table, "\"id\":\"abc123\""),
      "--json: an array of the records");
  free (table);
  history_record_release (&r);
  free (json);
  ok (history_record_parse ("{\"verdict\":{}}", &r, &err) < 0, "no id: not a record");
  shim_error_release (&err);

  ok (history_parse_since ("2h", 10000LL * 1000000000, &t, &err) == 0 && t == 2800LL * 1000000000, "since 2h");
  ok (history_parse_since ("@1700000000", 0, &t, &err) == 0 && t == 1700000000LL * 1000000000, "since @SECONDS");
  ok (history_parse_since ("2024-12-06T01:53:20Z", 0, &t, &err) == 0 && t == 1733450000LL * 1000000000,
      "since RFC 3339");
  ok (history_parse_since ("yesterday", 0, &t, &err) < 0 && strstr (err->msg, "`yesterday`"), "since: bad");
  shim_error_release (&err);
  ok (history_parse_since ("2024-12-06T01:53:20+02:00", 0, &t, &err) < 0, "since: not UTC");
  shim_error_release (&err);
}

/* The store written 5 times with a count of 3: 3 files, the newest. */
static void
test_store (void)
{
  char dir[] = "/tmp/test_history.XXXXXX";
  struct verdict v = oom_verdict ();
  struct history_limits l = { .keep_count = 3 };
  struct history_record *r = NULL;
  shim_error_t err = NULL;
  size_t n = 0;
  char id[16];
  bool all = true;

  if (mkdtemp (dir) == NULL)
    {
      ok (0, "mkdtemp");
      return;
    }
  for (int i = 0; i < 6; i++)
    {
      struct history_event e = { .id = id, .source = "run", .v = &v, .time_ns = (1733450000LL + i) * 1000000000 };
      snprintf (id, sizeof (id), "c%d", i);
      if (i == 5)
        {
          /* A prune is at most once a minute: the first write's is within
           * it, so the store holds five; then the last prune is made two
           * minutes old, and the sixth write prunes. */
          struct timespec ts[2];
          char mark[512];
          all &= history_read (dir, 0, NULL, &r, &n, &err) == 0;
          is_int (n, 5, "store: within a minute of a prune, none (five writes kept)");
          history_records_free (r, n);
          clock_gettime (CLOCK_REALTIME, &ts[0]);
          ts[0].tv_sec -= 120;
          ts[1] = ts[0];
          snprintf (mark, sizeof (mark), "%s/.pruned", dir);
          ok (utimensat (AT_FDCWD, mark, ts, 0) == 0, "store: the last prune made two minutes old");
        }
      all &= history_store_write (dir, &l, &e, &err) == 0;
      shim_error_release (&err);
    }
  ok (all, "store: six writes");
  ok (history_read (dir, 0, NULL, &r, &n, &err) == 0 && n == 3, "store: pruned to 3 (%zu)", n);
  ok (n == 3 && strcmp (r[0].id, "c3") == 0 && strcmp (r[2].id, "c5") == 0, "store: the newest, oldest first");
  history_records_free (r, n);
  ok (history_read (dir, 1733450005LL * 1000000000, "c", &r, &n, &err) == 0 && n == 1, "store: --since");
  history_records_free (r, n);
  ok (history_read ("/nonexistent/history", 0, NULL, &r, &n, &err) == 0 && n == 0, "no store: no records");
  history_records_free (r, n);
  /* A record whose name says more bytes than it holds (a crash cut it
   * short) is skipped, even where what is there parses. */
  {
    DIR *dd = opendir (dir);
    char from[512] = "", to[512];
    for (struct dirent *de; dd && (de = readdir (dd));)
      if (strstr (de->d_name, "-") && de->d_name[0] != '.' && strcmp (de->d_name, from) > 0)
        snprintf (from, sizeof (from), "%s", de->d_name);
    if (dd)
      closedir (dd);
    snprintf (to, sizeof (to), "%s/%.*s-9999.json", dir, (int) (strrchr (from, '-') - from), from);
    {
      char src[600];
      snprintf (src, sizeof (src), "%s/%s", dir, from);
      ok (rename (src, to) == 0, "store: the newest record renamed to say 9999 bytes");
    }
    all = history_read (dir, 0, NULL, &r, &n, &err) == 0;
    ok (all && n == 2, "store: a torn record is skipped (%zu read)", n);
    history_records_free (r, n);
  }

  DIR *d = opendir (dir);
  for (struct dirent *de; d && (de = readdir (d));)
    if (de->d_name[0] != '.' || (strcmp (de->d_name, ".") && strcmp (de->d_name, "..")))
      {
        char p[512];
        snprintf (p, sizeof (p), "%s/%s", dir, de->d_name);
        if (de->d_name[0] != '.')
          unlink (p);
      }
  if (d)
    closedir (d);
  {
    char mark[512];
    snprintf (mark, sizeof (mark), "%s/.pruned", dir);
    unlink (mark);
  }
  ok (rmdir (dir) == 0, "store: nothing else left (no dot-files but the prune's mark)");
}

/* The byte bound: a record's size is read from its name; a record named
 * before the size was (TIME_NS-PID-RND.json) is measured by stat.  The
 * old-style record below holds 4400 bytes: only a stat sees them, and
 * the 4500-byte bound then drops it.  The new-style one names 10 bytes but
 * holds 4400: only the name is read, and it stays. */
static void
test_store_sizes (void)
{
  char dir[] = "/tmp/test_history.XXXXXX", p[512], big[4400];
  struct verdict v = oom_verdict ();
  struct history_limits l = { .keep_bytes = 4500 };
  struct history_event e = { .id = "new", .source = "run", .v = &v, .time_ns = 1733450009LL * 1000000000 };
  shim_error_t err = NULL;
  FILE *f;

  if (mkdtemp (dir) == NULL)
    {
      ok (0, "mkdtemp");
      return;
    }
  memset (big, ' ', sizeof (big));
  snprintf (p, sizeof (p), "%s/01733450001000000000-1-0badf00d.json", dir);
  if ((f = fopen (p, "w")) != NULL)
    fclose (f = (fwrite (big, 1, sizeof (big), f), f));
  snprintf (p, sizeof (p), "%s/01733450002000000000-1-0badf00d-10.json", dir);
  if ((f = fopen (p, "w")) != NULL)
    fclose (f = (fwrite (big, 1, sizeof (big), f), f));
  ok (history_store_write (dir, &l, &e, &err) == 0, "store: a write with a 4500-byte bound");
  snprintf (p, sizeof (p), "%s/01733450001000000000-1-0badf00d.json", dir);
  ok (access (p, F_OK) < 0, "an old-style name: its 4400 bytes measured, and pruned");
  unlink (p);
  snprintf (p, sizeof (p), "%s/01733450002000000000-1-0badf00d-10.json", dir);
  ok (access (p, F_OK) == 0, "a name that says 10 bytes: taken at its word, kept");
  unlink (p);
  DIR *d = opendir (dir);
  for (struct dirent *de; d && (de = readdir (d));)
    if (de->d_name[0] != '.')
      {
        snprintf (p, sizeof (p), "%s/%s", dir, de->d_name);
        unlink (p);
      }
  if (d)
    closedir (d);
  snprintf (p, sizeof (p), "%s/.pruned", dir);
  unlink (p);
  ok (rmdir (dir) == 0, "store sizes: nothing else left");
  shim_error_release (&err);
}

/* 1100 deaths with the default limits: the store holds the 1000 newest. */
static void
test_thousand (void)
{
  char dir[64];
  struct verdict v = oom_verdict ();
  struct history_limits l = { HISTORY_KEEP_COUNT, HISTORY_KEEP_BYTES, HISTORY_KEEP_SECONDS };
  struct history_record *r = NULL;
  shim_error_t err = NULL;
  size_t n = 0;
  int failed = 0;
  struct timespec now;

  snprintf (dir, sizeof (dir), "%s/test_history.XXXXXX", access ("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (mkdtemp (dir) == NULL)
    {
      ok (0, "mkdtemp");
      return;
    }
  clock_gettime (CLOCK_REALTIME, &now);
  for (int i = 0; i < 1100; i++)
    {
      struct history_event e = { .id = "c", .source = "run", .v = &v,
                                 .time_ns = (int64_t) now.tv_sec * 1000000000 + i };
      if (history_store_write (dir, &l, &e, &err) < 0)
        failed++;
      shim_error_release (&err);
    }
  is_int (failed, 0, "1100 deaths written");
  /* A minute after the last prune (its mark made older), one more. */
  {
    struct timespec ts[2];
    char mark[96];
    struct history_event e = { .id = "c", .source = "run", .v = &v,
                               .time_ns = (int64_t) now.tv_sec * 1000000000 + 1100 };
    ts[0] = now;
    ts[0].tv_sec -= 120;
    ts[1] = ts[0];
    snprintf (mark, sizeof (mark), "%s/.pruned", dir);
    ok (utimensat (AT_FDCWD, mark, ts, 0) == 0 && history_store_write (dir, &l, &e, &err) == 0,
        "a death a minute after the last prune");
    shim_error_release (&err);
  }
  ok (history_read (dir, 0, NULL, &r, &n, &err) == 0, "read back");
  is_int (n, 1000, "the store holds the 1000 newest");
  ok (n == 1000 && r[0].time_ns == (int64_t) now.tv_sec * 1000000000 + 101, "... the oldest 101 pruned");
  for (size_t i = 0; i < n; i++)
    {
      char p[128];
      snprintf (p, sizeof (p), "%s/%s", dir, r[i].file);
      unlink (p);
    }
  history_records_free (r, n);
  {
    char mark[96];
    snprintf (mark, sizeof (mark), "%s/.pruned", dir);
    unlink (mark);
  }
  ok (rmdir (dir) == 0, "nothing else left");
}

int
main (void)
{
  test_names ();
  test_prune ();
  test_metrics ();
  test_journal ();
  test_journal_native ();
  test_record ();
  test_store ();
  test_store_sizes ();
  test_thousand ();
  return done_testing ();
}
