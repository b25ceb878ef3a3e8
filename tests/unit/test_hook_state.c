/* SPDX-License-Identifier: Apache-2.0 */
/* shim-oom-hook's parsers: the OCI state as each stack sends it, the stage,
 * /proc/PID/cgroup, and the names engines give containers.  The hook's sources are compiled in (they are not
 * part of libshim). */
#include "../../hooks/hook_state.c"
#include "../../hooks/hook_name.c"

#include "tap.h"

static void
parse_ok (const char *json, struct hook_state *st, const char *what)
{
  cleanup_error shim_error_t err = NULL;
  ok (hook_state_parse (json, st, &err) == 0, "%s parses (%s)", what, err ? err->msg : "no error");
}

static void
parse_fails (const char *json, const char *want, const char *what)
{
  cleanup_error shim_error_t err = NULL;
  struct hook_state st;
  ok (hook_state_parse (json, &st, &err) < 0, "%s is refused", what);
  has_str (err ? err->msg : NULL, want, "%s: the error names it", what);
}

static void
test_states (void)
{
  struct hook_state st;

  /* runc 1.1.5 at createRuntime (podman's bundle). */
  parse_ok ("{\"ociVersion\":\"1.0.2-dev\",\"id\":\"7509a\",\"status\":\"creating\",\"pid\":182,"
            "\"bundle\":\"/var/lib/containers/x/userdata\",\"annotations\":{\"io.container.manager\":"
            "\"libpod\"}}",
            &st, "runc createRuntime state");
  is_str (st.id, "7509a", "runc: id");
  is_str (st.status, "creating", "runc: status");
  is_int (st.pid, 182, "runc: pid");
  is_str (st.bundle, "/var/lib/containers/x/userdata", "runc: bundle");
  is_int (st.annotation, HOOK_SWITCH_UNSET, "runc: no switch annotation");
  hook_state_release (&st);

  /* crun 1.8.1: a `root` field, status created at prestart. */
  parse_ok ("{\"ociVersion\":\"1.0\",\"id\":\"c533\",\"pid\":325,\"root\":\"/var/lib/x/merged\","
            "\"bundle\":\"/b\",\"status\":\"created\",\"annotations\":{}}",
            &st, "crun state with `root`");
  is_int (st.pid, 325, "crun: pid");
  is_str (st.status, "created", "crun: status");
  hook_state_release (&st);

  /* Poststop: runc omits pid, crun sends 0, podman has neither and keeps
   * only some annotations. */
  parse_ok ("{\"ociVersion\":\"1.0.2\",\"id\":\"a\",\"status\":\"stopped\",\"bundle\":\"/b\"}", &st,
            "runc poststop without pid");
  is_int (st.pid, 0, "no pid is 0");
  hook_state_release (&st);
  parse_ok ("{\"ociVersion\":\"1.0\",\"id\":\"a\",\"pid\":0,\"root\":\"/r\",\"bundle\":\"/b\","
            "\"status\":\"stopped\"}",
            &st, "crun poststop with pid 0");
  is_int (st.pid, 0, "pid 0 is 0");
  hook_state_release (&st);
  parse_ok ("{\"id\":\"a\",\"pid\":null,\"status\":\"stopped\"}", &st, "pid null");
  is_int (st.pid, 0, "pid null is 0");
  ok (st.bundle == NULL, "no bundle is NULL");
  hook_state_release (&st);

  /* The switch. */
  parse_ok ("{\"id\":\"a\",\"annotations\":{\"io.github.shim.oom-hook\":\"false\"}}", &st,
            "opt-out annotation");
  is_int (st.annotation, HOOK_SWITCH_OFF, "false switches it off");
  hook_state_release (&st);
  parse_ok ("{\"id\":\"a\",\"annotations\":{\"io.github.shim.oom-hook\":\"TRUE\"}}", &st,
            "opt-in annotation");
  is_int (st.annotation, HOOK_SWITCH_ON, "TRUE switches it on");
  hook_state_release (&st);

  parse_fails ("", "not JSON", "empty input");
  parse_fails ("{\"id\":", "not JSON", "truncated JSON");
  parse_fails ("[1]", "expected an object, got an array", "an array");
  parse_fails ("{\"status\":\"created\"}", "no `id`", "no id");
  parse_fails ("{\"id\":\"a/b\"}", "`a/b`: only letters, digits", "an id with a slash");
  parse_fails ("{\"id\":\"..\"}", "starts with a dot", "the id ..");
  parse_fails ("{\"id\":7}", "`id`: expected a string, got an integer", "a numeric id");
  parse_fails ("{\"id\":\"a\",\"pid\":\"12\"}", "`pid`: expected an integer, got a string",
               "a string pid");
  parse_fails ("{\"id\":\"a\",\"pid\":1.5}", "`pid`: expected an integer", "a fractional pid");
  parse_fails ("{\"id\":\"a\",\"pid\":-3}", "-3 is not a process id", "a negative pid");
  parse_fails ("{\"id\":\"a\",\"bundle\":\"rel/dir\"}", "not an absolute path", "a relative bundle");
  parse_fails ("{\"id\":\"a\",\"annotations\":{\"x\":1}}", "`annotations.x`: expected a string",
               "a numeric annotation");
  parse_fails ("{\"id\":\"a\",\"annotations\":{\"io.github.shim.oom-hook\":\"maybe\"}}",
               "`maybe` is neither true nor false", "a bad switch value");
}

static void
test_stages (void)
{
  cleanup_error shim_error_t err = NULL;
  enum hook_stage s;

  ok (hook_state_stage_from_status ("creating", &s, &err) == 0 && s == HOOK_STAGE_ARM, "creating arms");
  ok (hook_state_stage_from_status ("created", &s, &err) == 0 && s == HOOK_STAGE_ARM,
      "created arms (crun's prestart)");
  ok (hook_state_stage_from_status ("stopped", &s, &err) == 0 && s == HOOK_STAGE_POSTSTOP,
      "stopped is poststop");
  ok (hook_state_stage_from_status ("running", &s, &err) < 0, "running is refused");
  has_str (err ? err->msg : NULL, "not poststart", "running: says poststart is too late");
  shim_error_release (&err);
  ok (hook_state_stage_from_status (NULL, &s, &err) < 0, "no status, no stage");
  shim_error_release (&err);
  ok (hook_state_stage_parse ("createRuntime", &s, &err) == 0 && s == HOOK_STAGE_ARM, "createRuntime");
  ok (hook_state_stage_parse ("prestart", &s, &err) == 0 && s == HOOK_STAGE_ARM, "prestart");
  ok (hook_state_stage_parse ("poststop", &s, &err) == 0 && s == HOOK_STAGE_POSTSTOP, "poststop");
  ok (hook_state_stage_parse ("poststart", &s, &err) < 0, "poststart is refused");
  has_str (err ? err->msg : NULL, "cannot arm", "poststart: why");
  shim_error_release (&err);
  ok (hook_state_stage_parse ("bogus", &s, &err) < 0, "an unknown stage is refused");
}

static void
proc_ok (const char *buf, const char *want, const char *what)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *p = NULL;
  ok (hook_state_parse_proc_cgroup (buf, &p, &err) == 0, "%s (%s)", what, err ? err->msg : "no error");
  is_str (p, want, "%s: path", what);
}

static void
proc_fails (const char *buf, const char *want, const char *what)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *p = NULL;
  ok (hook_state_parse_proc_cgroup (buf, &p, &err) < 0, "%s is refused", what);
  has_str (err ? err->msg : NULL, want, "%s: the error says why", what);
}

static void
test_proc_cgroup (void)
{
  proc_ok ("0::/libpod_parent/libpod-75092404\n", "/libpod_parent/libpod-75092404", "pure v2");
  proc_ok ("12:pids:/user.slice\n5:memory:/user.slice\n1:name=systemd:/user.slice/x.scope\n"
           "0::/user.slice/x.scope\n",
           "/user.slice/x.scope", "hybrid: the 0:: line among v1 lines");
  proc_ok ("0::/machine.slice/libpod-1.scope", "/machine.slice/libpod-1.scope",
           "no final newline");
  proc_ok ("0::/a/..b/c\n", "/a/..b/c", "a name starting with two dots is a name");
  proc_fails ("5:memory:/x\n1:name=systemd:/x\n", "no cgroup v2 line", "v1 only");
  proc_fails ("", "no cgroup v2 line", "empty");
  proc_fails ("0::/../..\n", "outside this cgroup namespace", "another cgroup namespace");
  proc_fails ("0::/a/../b\n", "outside this cgroup namespace", "a path climbing with ..");
  proc_fails ("0::/\n", "root cgroup", "the root cgroup");
  proc_fails ("0::/x (deleted)\n", "was removed", "a removed cgroup");
  proc_fails ("0::x\n", "not an absolute path", "a relative path");

  ok (hook_state_cgroup_within ("/a/b", "/a/b"), "a cgroup is within itself");
  ok (hook_state_cgroup_within ("/a/b/c", "/a/b"), "a child is within");
  ok (!hook_state_cgroup_within ("/a/bc", "/a/b"), "a sibling with a longer name is not");
  ok (!hook_state_cgroup_within ("/a", "/a/b"), "a parent is not");
}

/* The engine's name for a container: containerd's CRI and nerdctl annotate
 * it; podman writes it only into the container's hosts file. */
static void
test_names (void)
{
  struct hook_state st;
  char *name;

  parse_ok ("{\"id\":\"c1\",\"annotations\":{\"io.kubernetes.cri.container-name\":\"web\","
            "\"io.kubernetes.cri.sandbox-name\":\"pod\"}}",
            &st, "CRI annotations");
  is_str (st.name, "web", "CRI: the container's name");
  ok (!st.podman, "CRI: not podman");
  hook_state_release (&st);
  parse_ok ("{\"id\":\"c1\",\"annotations\":{\"nerdctl/name\":\"db-1\"}}", &st, "nerdctl annotation");
  is_str (st.name, "db-1", "nerdctl: the name");
  hook_state_release (&st);
  parse_ok ("{\"id\":\"c1\",\"annotations\":{\"nerdctl/name\":\"../x\"}}", &st, "a name with a slash");
  ok (st.name == NULL, "a name that cannot be a directory name is left out");
  hook_state_release (&st);
  parse_ok ("{\"id\":\"c1\",\"annotations\":{\"io.container.manager\":\"libpod\"}}", &st,
            "podman's annotations");
  ok (st.podman && st.name == NULL, "podman: known as podman's, no name in the state");
  hook_state_release (&st);

  /* podman 4.3's hosts file for `podman run --name my-named-ct`. */
  history_name_from_hosts ("127.0.0.1\tlocalhost\n127.0.0.1\tvm\n127.0.0.1\t877386e833a8 my-named-ct\n",
                        "877386e833a8", &name);
  is_str (name, "my-named-ct", "hosts: the alias after the hostname");
  free (name);
  history_name_from_hosts ("# 10.0.0.1 877386e833a8 commented\n10.88.0.2  877386e833a8\tweb  # x\n",
                        "877386e833a8", &name);
  is_str (name, "web", "hosts: comments and blanks");
  free (name);
  history_name_from_hosts ("127.0.0.1 localhost\n127.0.0.1 877386e833a8\n", "877386e833a8", &name);
  ok (name == NULL, "hosts: the hostname alone names nothing");
  history_name_from_hosts ("127.0.0.1 other 877386e833a8x\n", "877386e833a8", &name);
  ok (name == NULL, "hosts: only the exact hostname counts");
  history_name_from_hosts ("127.0.0.1 877386e833a8 .hidden\n", "877386e833a8", &name);
  ok (name == NULL, "hosts: a dot name is left out");
}

int
main (void)
{
  test_states ();
  test_stages ();
  test_proc_cgroup ();
  test_names ();
  return done_testing ();
}
