/* SPDX-License-Identifier: Apache-2.0 */
/* Rootless, runc's rule (common/util.h util_rootless): not root, or root
 * of a user namespace with $USER not root; the uid outside a user
 * namespace; where a rootless history goes without HOME (history.h). */
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "history/history.h"
#include "tap.h"

/* What the child learns as root of a user namespace mapping it to uid
 * 65534 outside. */
struct in_userns
{
  int rootless_user;   /* util_rootless () with USER=nobody */
  int rootless_root;   /* with USER=root */
  int rootless_nouser; /* without USER (podman's start, kill, delete) */
  unsigned outside;    /* util_outside_uid () */
  char history[256];   /* history_config_init's dir, HOME and XDG unset */
};

static void
child (int go, int out)
{
  struct in_userns r = { 0 };
  struct history_config c;
  char b;

  /* uid 65534 outside, so that root inside is someone else outside. */
  if (setresuid (65534, 65534, 65534) < 0 || unshare (CLONE_NEWUSER) < 0)
    _exit (2);
  if (write (out, "u", 1) != 1 || read (go, &b, 1) != 1)
    _exit (3);
  unsetenv ("HOME");
  unsetenv ("XDG_DATA_HOME");
  unsetenv ("SHIM_HISTORY_DIR");
  setenv ("USER", "nobody", 1);
  r.rootless_user = util_rootless ();
  history_config_init (&c);
  snprintf (r.history, sizeof r.history, "%s", c.dir ? c.dir : c.dir_why);
  setenv ("USER", "root", 1);
  r.rootless_root = util_rootless ();
  unsetenv ("USER");
  r.rootless_nouser = util_rootless ();
  r.outside = (unsigned) util_outside_uid ();
  _exit (write (out, &r, sizeof r) == (ssize_t) sizeof r ? 0 : 4);
}

static void
test_in_userns (void)
{
  int to[2], from[2], st;
  struct in_userns r;
  char path[64], b;
  struct passwd *pw = getpwuid (65534);
  shim_error_t err = NULL;
  char want[300];
  pid_t pid;

  if (geteuid () != 0)
    {
      diag ("skip: not root (a user namespace mapped to another uid needs root)");
      return;
    }
  if (pipe2 (to, O_CLOEXEC) < 0 || pipe2 (from, O_CLOEXEC) < 0)
    return (void) ok (0, "pipes");
  pid = fork ();
  if (pid == 0)
    child (to[0], from[1]);
  close (to[0]);
  close (from[1]);
  if (read (from[0], &b, 1) != 1)
    {
      ok (0, "the child made a user namespace");
      waitpid (pid, &st, 0);
      return;
    }
  snprintf (path, sizeof path, "/proc/%d/uid_map", (int) pid);
  ok (util_write_file_at (AT_FDCWD, path, "0 65534 1\n", 10, &err) == 0, "uid_map 0 65534 1 written: %s",
      err ? err->msg : "yes");
  shim_error_release (&err);
  ok (write (to[1], "g", 1) == 1, "the child goes on");
  ok (read (from[0], &r, sizeof r) == (ssize_t) sizeof r, "the child's answers");
  waitpid (pid, &st, 0);
  ok (r.rootless_user, "root of a user namespace, USER=nobody: rootless");
  ok (!r.rootless_root, "root of a user namespace, USER=root: not rootless");
  ok (r.rootless_nouser, "root of a user namespace, no USER: rootless (as podman calls start)");
  is_int (r.outside, 65534, "the uid outside, from /proc/self/uid_map");
  snprintf (want, sizeof want, "%s/.local/share/shim/history", pw ? pw->pw_dir : "?");
  if (pw && strcmp (pw->pw_dir, "/") != 0)
    is_str (r.history, want, "no HOME: the history in the home of the uid outside (passwd)");
  close (to[1]);
  close (from[0]);
}

int
main (void)
{
  uid_t out = 0;

  ok (util_rootless_decide (1000, 1, "root"), "not root: rootless, whatever USER says");
  ok (!util_rootless_decide (0, 1, "alice"), "root of the initial user namespace: not rootless");
  ok (!util_rootless_decide (0, -1, "alice"), "root, user namespace unknown: not rootless");
  ok (util_rootless_decide (0, 0, "alice"), "root of another user namespace, USER=alice: rootless");
  ok (!util_rootless_decide (0, 0, "root"), "root of another user namespace, USER=root: not rootless");
  ok (util_rootless_decide (0, 0, NULL), "root of another user namespace, no USER (podman's start): rootless");

  ok (util_uid_map_outside ("         0       1000          1\n", 0, &out) == 0 && out == 1000,
      "podman's map: root is the user outside");
  ok (util_uid_map_outside ("0 1000 1\n1 100000 65536\n", 5, &out) == 0 && out == 100004,
      "a subordinate range: its offset");
  ok (util_uid_map_outside ("0 1000 1\n1 100000 65536\n", 65537, &out) < 0, "past the ranges: not mapped");
  ok (util_uid_map_outside ("", 0, &out) < 0, "an empty map: not mapped");
  ok (util_uid_map_outside ("0 0 4294967295\n", 42, &out) == 0 && out == 42, "the initial map: the same uid");
  test_in_userns ();
  return done_testing ();
}
