/* SPDX-License-Identifier: Apache-2.0 */
/* config_parse(): the typed struct of valid configs, the exact message
 * of every bad config in fixtures/config/bad/ (NAME.json with NAME.err), the
 * warnings for known-but-unsupported fields, and config_mount_options_parse().
 * Run from the repository root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/config.h"
#include "tap.h"
#include "common/util.h"

#define FIXTURES "tests/unit/fixtures/config"
#define U64MAX 18446744073709551615ULL

/* The warn callback: "path: why" lines. */
struct warnings
{
  char text[8192];
  int n;
};

static void
collect_warning (void *opaque, const char *path, const char *why)
{
  struct warnings *w = opaque;
  size_t used = strlen (w->text);
  snprintf (w->text + used, sizeof (w->text) - used, "%s: %s\n", path, why);
  w->n++;
}

static char *
slurp (const char *path, size_t *len)
{
  shim_error_t err = NULL;
  char *buf = NULL;
  if (util_read_file_at (AT_FDCWD, path, &buf, len, &err) < 0)
    {
      diag ("%s", err->msg);
      shim_error_release (&err);
      return NULL;
    }
  return buf;
}

/* Parse JSON with bundle "/bundle"; NULL (and a diagnostic) on error. */
static struct shim_config *
parse_str (const char *json, struct warnings *w)
{
  struct shim_config *c = NULL;
  shim_error_t err = NULL;
  if (config_parse (json, strlen (json), "/bundle", &c, w ? collect_warning : NULL, w, &err) < 0)
    {
      diag ("unexpected error: %s", err->msg);
      shim_error_release (&err);
      return NULL;
    }
  return c;
}

/* The error message of parsing JSON, or NULL if it parsed.  The caller frees. */
static char *
parse_error (const char *json, size_t len)
{
  struct shim_config *c = NULL;
  shim_error_t err = NULL;
  char *msg;
  if (config_parse (json, len, "/bundle", &c, NULL, NULL, &err) == 0)
    {
      config_free (c);
      return NULL;
    }
  /* Nothing is handed out on failure. */
  if (c != NULL)
    ok (0, "a config was handed out despite the error: %s", err->msg);
  msg = strdup (err->msg);
  shim_error_release (&err);
  return msg;
}

/* A minimal valid config with SNIPPET spliced in as more top-level keys. */
static char *
minimal_with (const char *snippet)
{
  char *s = NULL;
  if (asprintf (&s,
                "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"},"
                " \"process\": {\"args\": [\"/bin/true\"], \"cwd\": \"/\"},"
                " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}]} %s%s}",
                *snippet ? ", " : "", snippet)
      < 0)
    abort ();
  return s;
}

static void
test_bad_corpus (void)
{
  struct dirent **names = NULL;
  int n, i, checked = 0;

  n = scandir (FIXTURES "/bad", &names, NULL, alphasort);
  ok (n > 0, "the bad-config corpus is there (run from the repository root)");
  for (i = 0; i < n; i++)
    {
      const char *name = names[i]->d_name;
      size_t nl = strlen (name);
      cleanup_free char *json_path = NULL, *err_path = NULL, *json = NULL, *want = NULL, *got = NULL;
      size_t len = 0;

      if (nl < 5 || strcmp (name + nl - 5, ".json") != 0)
        {
          if (nl > 4 && strcmp (name + nl - 4, ".err") == 0)
            {
              /* Every .err has its .json. */
              cleanup_free char *j = NULL;
              struct stat st;
              if (asprintf (&j, FIXTURES "/bad/%.*s.json", (int) (nl - 4), name) < 0)
                abort ();
              ok (stat (j, &st) == 0, "bad/%s has its .json", name);
            }
          free (names[i]);
          continue;
        }
      if (asprintf (&json_path, FIXTURES "/bad/%s", name) < 0
          || asprintf (&err_path, FIXTURES "/bad/%.*s.err", (int) (nl - 5), name) < 0)
        abort ();
      json = slurp (json_path, &len);
      want = slurp (err_path, NULL);
      if (json == NULL || want == NULL)
        {
          ok (0, "bad/%s: fixture pair readable", name);
          free (names[i]);
          continue;
        }
      want[strcspn (want, "\n")] = '\0';
      got = parse_error (json, len);
      is_str (got, want, "bad/%s", name);
      checked++;
      free (names[i]);
    }
  free (names);
  ok (checked >= 60, "%d bad configs checked", checked);
}

static void
test_full (void)
{
  cleanup_free char *json = slurp (FIXTURES "/good/full.json", NULL);
  struct warnings w = { 0 };
  cleanup_config struct shim_config *c = json ? parse_str (json, &w) : NULL;
  const struct cgroup_resources *r;
  const struct shim_namespace *ns;

  ok (c != NULL, "good/full.json parses");
  if (c == NULL)
    return;
  /* Its one unknown key: warned about, never an error. */
  is_int (w.n, 1, "good/full.json: one warning");
  is_str (w.text, "unknownTopLevelKey: not in the runtime spec, ignored\n", "good/full.json: the unknown key's");
  is_str (c->oci_version, "1.2.0", "ociVersion");
  is_str (c->bundle, "/bundle", "bundle");
  is_str (c->root_path, "/bundle/rootfs", "relative root.path resolved against the bundle");
  ok (c->root_readonly, "root.readonly");
  is_str (c->hostname, "full", "hostname");

  /* process */
  ok (!c->process.terminal, "process.terminal");
  is_int (c->process.n_args, 3, "process.args: 3");
  is_str (c->process.args[0], "/bin/sh", "process.args[0]");
  is_str (c->process.args[2], "echo \"quoted\" and unicode \xc3\xa9", "process.args[2]: escapes decoded");
  ok (c->process.args[3] == NULL, "process.args is NULL-terminated");
  is_int (c->process.n_env, 3, "process.env: 3");
  is_str (c->process.env[1], "EMPTY=", "process.env[1]: empty value");
  is_str (c->process.env[2], "EQ=a=b", "process.env[2]: '=' in the value");
  ok (c->process.env[3] == NULL, "process.env is NULL-terminated");
  is_str (c->process.cwd, "/srv/app", "process.cwd");
  is_int (c->process.uid, 1000, "process.user.uid");
  is_int (c->process.gid, 1001, "process.user.gid");
  ok (c->process.has_umask, "process.user.umask present");
  is_int (c->process.umask, 022, "process.user.umask: 18 is 022");
  is_int (c->process.n_additional_gids, 2, "process.user.additionalGids: 2");
  if (c->process.n_additional_gids == 2)
    {
      is_int (c->process.additional_gids[0], 5, "additionalGids[0]");
      is_int (c->process.additional_gids[1], 4294967295U, "additionalGids[1]: 2^32-1");
    }
  is_int (c->process.n_rlimits, 3, "process.rlimits: 3");
  if (c->process.n_rlimits == 3)
    {
      is_int (c->process.rlimits[0].resource, RLIMIT_NOFILE, "rlimits[0].type");
      is_int (c->process.rlimits[0].soft, 1024, "rlimits[0].soft");
      is_int (c->process.rlimits[0].hard, 4096, "rlimits[0].hard");
      is_int (c->process.rlimits[1].resource, RLIMIT_CORE, "rlimits[1].type");
      ok (c->process.rlimits[1].soft == U64MAX, "rlimits[1].soft: 18446744073709551615");
      ok (c->process.rlimits[1].hard == U64MAX, "rlimits[1].hard: 18446744073709551615");
      is_int (c->process.rlimits[2].resource, RLIMIT_NPROC, "rlimits[2].type");
      is_int (c->process.rlimits[2].hard, 0, "rlimits[2].hard: 0");
    }
  ok (c->process.no_new_privileges, "process.noNewPrivileges");
  ok (c->process.has_oom_score_adj, "process.oomScoreAdj present");
  is_int (c->process.oom_score_adj, -500, "process.oomScoreAdj");

  /* mounts */
  is_int (c->n_mounts, 5, "mounts: 5");
  if (c->n_mounts == 5)
    {
      const struct shim_mount *m = c->mounts;
      is_str (m[0].destination, "/proc", "mounts[0].destination");
      is_str (m[0].type, "proc", "mounts[0].type");
      is_str (m[0].source, "proc", "mounts[0].source");
      is_int (m[0].flags, 0, "mounts[0]: no flags");
      ok (m[0].data == NULL, "mounts[0]: no data");
      is_int (m[1].flags, MS_NOSUID | MS_RDONLY, "mounts[1]: nosuid,ro are flags");
      is_int (m[1].propagation, MS_SLAVE | MS_REC, "mounts[1]: rslave is propagation");
      is_str (m[1].data, "mode=755,size=64k", "mounts[1]: mode=,size= are data, in order");
      ok (!m[1].is_bind, "mounts[1]: not a bind");
      ok (m[2].is_bind, "mounts[2]: rbind makes a bind mount");
      is_int (m[2].flags, MS_BIND | MS_REC | MS_NODEV | MS_RDONLY, "mounts[2]: rbind,nodev,ro");
      is_str (m[2].source, "/srv/data", "mounts[2].source");
      ok (m[3].is_bind, "mounts[3]: type bind is a bind mount");
      is_int (m[3].flags, MS_BIND, "mounts[3]: MS_BIND without options");
      is_str (m[3].source, "resolv.conf", "mounts[3].source kept relative (resolved at mount time)");
      is_int (m[4].flags, MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RELATIME | MS_RDONLY, "mounts[4] flags");
    }

  /* linux */
  is_int (c->n_namespaces, 6, "linux.namespaces: 6");
  ns = config_namespace (c, CLONE_NEWPID);
  ok (ns && ns->path == NULL, "pid namespace: new");
  ns = config_namespace (c, CLONE_NEWNET);
  ok (ns && ns->path && strcmp (ns->path, "/var/run/netns/blue") == 0, "network namespace: joined by path");
  ns = config_namespace (c, CLONE_NEWCGROUP);
  ok (ns && ns->path == NULL, "cgroup namespace: path null is no path");
  ok (config_namespace (c, CLONE_NEWNS) != NULL, "mount namespace");
  ok (config_namespace (c, CLONE_NEWUTS) != NULL, "uts namespace");
  ok (config_namespace (c, CLONE_NEWIPC) != NULL, "ipc namespace");
  is_str (c->cgroups_path, "/shim/full", "linux.cgroupsPath");
  is_int (c->rootfs_propagation, MS_SLAVE | MS_REC, "linux.rootfsPropagation");
  is_int (c->n_masked_paths, 2, "linux.maskedPaths: 2");
  is_str (c->masked_paths[1], "/sys/firmware", "linux.maskedPaths[1]");
  is_int (c->n_readonly_paths, 1, "linux.readonlyPaths: 1");
  is_int (c->n_sysctl, 2, "linux.sysctl: 2");
  if (c->n_sysctl == 2)
    {
      is_str (c->sysctl[0].key, "net.ipv4.ip_forward", "sysctl[0] key");
      is_str (c->sysctl[0].value, "1", "sysctl[0] value");
      is_str (c->sysctl[1].value, "68719476736", "sysctl[1] value");
    }
  is_int (c->n_annotations, 1, "annotations: 1");

  /* resources */
  ok (c->has_resources, "linux.resources present");
  r = &c->resources;
  ok (r->has_memory_limit, "memory.limit present");
  is_int (r->memory_limit, 536870912, "memory.limit");
  ok (r->has_memory_reservation, "memory.reservation present");
  is_int (r->memory_reservation, 268435456, "memory.reservation");
  ok (r->has_memory_swap, "memory.swap present");
  is_int (r->memory_swap, 1073741824, "memory.swap");
  ok (r->has_pids_limit, "pids.limit present");
  is_int (r->pids_limit, 512, "pids.limit");
  ok (r->has_cpu_shares && r->cpu_shares == 1024, "cpu.shares");
  ok (r->has_cpu_quota && r->cpu_quota == 50000, "cpu.quota");
  ok (r->has_cpu_period && r->cpu_period == 100000, "cpu.period");
  is_str (r->cpu_cpus, "0-1", "cpu.cpus");
  is_str (r->cpu_mems, "0", "cpu.mems");
  ok (r->has_blkio_weight, "blockIO.weight present");
  is_int (r->blkio_weight, 500, "blockIO.weight");
  is_int (r->n_unified, 2, "unified: 2");
  if (r->n_unified == 2)
    {
      is_str (r->unified[0].key, "memory.high", "unified[0] key");
      is_str (r->unified[0].value, "400000000", "unified[0] value");
      is_str (r->unified[1].value, "default 100", "unified[1] value");
    }
}

static void
test_defaults (void)
{
  cleanup_free char *json = minimal_with ("");
  cleanup_config struct shim_config *c = parse_str (json, NULL);
  ok (c != NULL, "a minimal config parses");
  if (c == NULL)
    return;
  is_int (c->process.uid, 0, "default uid 0");
  is_int (c->process.gid, 0, "default gid 0");
  ok (!c->process.has_umask, "no umask unless given");
  ok (!c->process.has_oom_score_adj, "no oomScoreAdj unless given");
  ok (!c->process.no_new_privileges, "noNewPrivileges off unless given");
  ok (c->process.env == NULL && c->process.n_env == 0, "no env unless given");
  ok (!c->root_readonly, "root read-write unless given");
  ok (c->hostname == NULL, "no hostname unless given");
  ok (!c->has_resources, "no resources unless given");
  is_int (c->rootfs_propagation, 0, "rootfsPropagation: 0 (default) unless given");
  is_str (c->root_path, "/bundle/rootfs", "root.path resolved");
}

/* process.terminal and consoleSize, through the parser `exec --process`
 * uses too. */
static void
test_terminal (void)
{
  const char *json = "{\"terminal\": true, \"consoleSize\": {\"height\": 24, \"width\": 80},"
                     " \"args\": [\"sh\"]}";
  struct shim_process p;
  shim_error_t err = NULL;

  ok (config_process_parse (json, strlen (json), &p, NULL, NULL, &err) == 0, "a process with a terminal parses");
  ok (p.terminal, "process.terminal");
  is_int (p.console_height, 24, "process.consoleSize.height");
  is_int (p.console_width, 80, "process.consoleSize.width");
  is_str (p.cwd, "/", "process.cwd defaults to /");
  config_process_free (&p);
  shim_error_release (&err);
}

static void
test_root_paths (void)
{
  static const struct
  {
    const char *root, *want;
  } cases[] = {
    { "rootfs", "/bundle/rootfs" },
    { "../rootfs", "/bundle/../rootfs" },
    { "/abs/rootfs", "/abs/rootfs" },
  };
  size_t i;
  for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    {
      cleanup_free char *json = NULL;
      cleanup_config struct shim_config *c = NULL;
      if (asprintf (&json,
                    "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"%s\"},"
                    " \"process\": {\"args\": [\"x\"], \"cwd\": \"/\"},"
                    " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}]}}",
                    cases[i].root)
          < 0)
        abort ();
      c = parse_str (json, NULL);
      is_str (c ? c->root_path : NULL, cases[i].want, "root.path %s", cases[i].root);
    }
}

static void
test_resources (void)
{
  struct
  {
    const char *snippet, *what;
    bool has_limit;
    int64_t limit;
    bool has_swap;
    int64_t swap;
    bool has_pids;
    int64_t pids;
  } cases[] = {
    { "\"memory\": {\"limit\": 0}", "memory.limit 0 is unset, as runc", false, 0, false, 0, false, 0 },
    { "\"memory\": {\"limit\": 0, \"swap\": 100}", "limit 0 with a swap: no swap-below-limit error",
      false, 0, true, 100, false, 0 },
    { "\"memory\": {\"limit\": -1, \"swap\": -1}", "-1 is unlimited", true, -1, true, -1, false, 0 },
    { "\"memory\": {\"limit\": 1000, \"swap\": 1000}", "swap equal to limit: no swap", true, 1000, true, 1000,
      false, 0 },
    { "\"memory\": {\"limit\": null}", "null is absent", false, 0, false, 0, false, 0 },
    { "\"pids\": {\"limit\": 0}", "pids.limit 0 kept (<= 0 is unlimited)", false, 0, false, 0, true, 0 },
    { "\"pids\": {\"limit\": -1}", "pids.limit -1", false, 0, false, 0, true, -1 },
  };
  size_t i;
  for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    {
      cleanup_free char *lin = NULL, *json = NULL;
      cleanup_config struct shim_config *c = NULL;
      if (asprintf (&json,
                    "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"r\"},"
                    " \"process\": {\"args\": [\"x\"], \"cwd\": \"/\"},"
                    " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}], \"resources\": {%s}}}",
                    cases[i].snippet)
          < 0)
        abort ();
      c = parse_str (json, NULL);
      ok (c != NULL, "resources: %s: parses", cases[i].what);
      if (c == NULL)
        continue;
      ok (c->resources.has_memory_limit == cases[i].has_limit
              && (!cases[i].has_limit || c->resources.memory_limit == cases[i].limit),
          "resources: %s: memory.limit", cases[i].what);
      ok (c->resources.has_memory_swap == cases[i].has_swap
              && (!cases[i].has_swap || c->resources.memory_swap == cases[i].swap),
          "resources: %s: memory.swap", cases[i].what);
      ok (c->resources.has_pids_limit == cases[i].has_pids
              && (!cases[i].has_pids || c->resources.pids_limit == cases[i].pids),
          "resources: %s: pids.limit", cases[i].what);
    }
}

/* Docker sends blockIO.weight 0 for every container: "not set", as runc
 * reads it. */
static void
test_blkio_weight_zero (void)
{
  const char *json = "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"},"
                     " \"process\": {\"args\": [\"/bin/true\"], \"cwd\": \"/\"},"
                     " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}],"
                     " \"resources\": {\"blockIO\": {\"weight\": 0}}}}";
  cleanup_config struct shim_config *c = parse_str (json, NULL);

  ok (c != NULL, "blockIO.weight 0 parses");
  if (c)
    ok (!c->resources.has_blkio_weight, "blockIO.weight 0 is not set");
}

static void
test_warnings (void)
{
  cleanup_free char *json = slurp (FIXTURES "/good/unsupported.json", NULL);
  struct warnings w = { 0 };
  cleanup_config struct shim_config *c = json ? parse_str (json, &w) : NULL;

  ok (c != NULL, "good/unsupported.json parses: unsupported fields are not errors");
  /* Applied since issues 4 and 5: parsed, not warned about. */
  ok (strstr (w.text, "process.capabilities") == NULL, "no warning for process.capabilities");
  ok (strstr (w.text, "process.apparmorProfile") == NULL, "no warning for process.apparmorProfile");
  ok (strstr (w.text, "linux.seccomp") == NULL, "no warning for linux.seccomp");
  ok (strstr (w.text, "hooks") == NULL, "no warning for hooks");
  has_str (w.text, "linux.resources.memory.kernel: ", "warns about linux.resources.memory.kernel");
  ok (strstr (w.text, "linux.resources.devices") == NULL, "no warning about linux.resources.devices: applied");
  is_int (w.n, 1, "one warning");
  if (w.n != 1)
    diag ("%s", w.text);
  if (c)
    ok (!c->resources.has_memory_limit, "memory.limit 0 is unset");

  /* A NULL callback is allowed. */
  {
    cleanup_config struct shim_config *c2 = json ? parse_str (json, NULL) : NULL;
    ok (c2 != NULL, "no warn callback: parses all the same");
  }
  /* Unknown keys are ignored, as runc ignores them, with a warning naming
   * their JSON path; no suggestion when no known name is close. */
  {
    cleanup_free char *j = minimal_with ("\"vendorExtension\": {\"x\": 1}");
    struct warnings w2 = { 0 };
    cleanup_config struct shim_config *c3 = parse_str (j, &w2);
    ok (c3 != NULL, "an unknown top-level key: no error");
    is_str (w2.text, "vendorExtension: not in the runtime spec, ignored\n", "an unknown top-level key: warned");
  }
}

/* A misspelt field is named with the closest known name of its
 * object; the spec's names for other platforms are no misspelling. */
static void
test_unknown_fields (void)
{
  static const struct
  {
    const char *extra, *warning; /* warning NULL: none */
  } rows[] = {
    /* Top-level keys, then (from the warning's path) keys of linux. */
    { "\"proccess\": {}", "proccess: not in the runtime spec, ignored (did you mean `process`?)\n" },
    { "\"Hostname\": \"x\"", "Hostname: not in the runtime spec, ignored (did you mean `hostname`?)\n" },
    { "\"resources\": {\"memroy\": {\"limit\": 1}}",
      "linux.resources.memroy: not in the runtime spec, ignored (did you mean `memory`?)\n" },
    { "\"sysctls\": {}",
      "linux.sysctls: not in the runtime spec, ignored (did you mean `sysctl`?)\n" },
    /* Too far from any name (and a key longer than any) : no guess. */
    { "\"xy\": 1", "xy: not in the runtime spec, ignored\n" },
    { "\"processprocessprocessprocessprocessprocessprocessprocess\": 1",
      "processprocessprocessprocessprocessprocessprocessprocess: not in the runtime spec, ignored\n" },
    { "\"windows\": {\"x\": 1}, \"solaris\": {}, \"vm\": {}, \"zos\": {}", NULL },
    { "\"memoryPolicy\": {}",
      "linux.memoryPolicy: memory policies are not applied yet\n" },
  };

  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      cleanup_free char *j = NULL;
      struct warnings w = { 0 };
      if (rows[i].warning && strncmp (rows[i].warning, "linux.", 6) == 0)
        {
          if (asprintf (&j,
                        "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"},"
                        " \"process\": {\"args\": [\"/bin/true\"], \"cwd\": \"/\"},"
                        " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}], %s}}",
                        rows[i].extra)
              < 0)
            abort ();
        }
      else
        j = minimal_with (rows[i].extra);
      cleanup_config struct shim_config *c = parse_str (j, &w);
      ok (c != NULL, "unknown fields: %s: no error", rows[i].extra);
      if (c == NULL)
        diag ("%s", j);
      is_str (w.text, rows[i].warning ? rows[i].warning : "", "unknown fields: %s: the warning", rows[i].extra);
    }
}

static void
test_examples (void)
{
  static const char *const names[] = { "hello", "exit3", "sleeper", "memhog", "forkbomb" };
  size_t i;
  for (i = 0; i < sizeof (names) / sizeof (names[0]); i++)
    {
      cleanup_free char *path = NULL, *json = NULL;
      cleanup_config struct shim_config *c = NULL;
      struct warnings w = { 0 };
      if (asprintf (&path, "examples/%s/config.json", names[i]) < 0)
        abort ();
      json = slurp (path, NULL);
      c = json ? parse_str (json, &w) : NULL;
      ok (c != NULL && w.n == 0, "%s parses without warnings", path);
      if (c)
        is_str (c->root_path, "/bundle/../rootfs", "%s: root.path", path);
    }
}

static void
test_misc_errors (void)
{
  static const char nul[] = "{\"ociVersion\": \"1.0.2\"\0}";
  cleanup_free char *m1 = parse_error (nul, sizeof (nul) - 1);
  is_str (m1, "contains a NUL byte", "a NUL byte inside the document");

  /* \u0000 in a string would be cut there by yajl: refused; a backslash
   * escaped before "u0000" is no NUL and stays. */
  {
    cleanup_free char *j = minimal_with ("\"hostname\": \"a\\u0000b\"");
    cleanup_free char *m = parse_error (j, strlen (j));
    is_str (m, "a string contains a NUL byte (\\u0000)", "an escaped NUL in a string");
  }
  {
    cleanup_free char *j = minimal_with ("\"annotations\": {\"k\": \"a\\\\u0000b\"}");
    struct shim_config *c = parse_str (j, NULL);
    ok (c != NULL, "an escaped backslash before u0000 is text");
    config_free (c);
  }

  /* The first error wins: args[0] is wrong before cwd is checked. */
  {
    static const char j[] = "{\"process\": {\"args\": [1], \"cwd\": \"rel\"}}";
    cleanup_free char *m = parse_error (j, strlen (j));
    is_str (m, "process.args[0]: expected string, got number", "the first error is reported");
  }

  /* config_load adds the file. */
  {
    char dir[] = "/tmp/test_config.XXXXXX";
    shim_error_t err = NULL;
    struct shim_config *c = NULL;
    cleanup_free char *file = NULL, *want = NULL;
    int fd;

    ok (mkdtemp (dir) != NULL, "a temporary bundle");
    if (asprintf (&file, "%s/config.json", dir) < 0)
      abort ();
    ok (config_load (dir, &c, NULL, NULL, &err) < 0, "load: no config.json fails");
    if (asprintf (&want, "%s: No such file or directory", file) < 0)
      abort ();
    is_str (err ? err->msg : NULL, want, "load: missing config.json names the file");
    shim_error_release (&err);

    fd = open (file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ok (fd >= 0 && write (fd, "{\n  \"ociVersion\": 2\n}\n", 22) == 22, "write a bad config.json");
    if (fd >= 0)
      close (fd);
    ok (config_load (dir, &c, NULL, NULL, &err) < 0, "load: a bad config.json fails");
    free (want);
    if (asprintf (&want, "%s: ociVersion: expected string, got number", file) < 0)
      abort ();
    is_str (err ? err->msg : NULL, want, "load: the error is prefixed with the file");
    shim_error_release (&err);

    fd = open (file, O_WRONLY | O_TRUNC | O_CLOEXEC);
    ok (fd >= 0 && write (fd, "{\n  \"ociVersion\": \n", 19) == 19, "write a truncated config.json");
    if (fd >= 0)
      close (fd);
    ok (config_load (dir, &c, NULL, NULL, &err) < 0, "load: a truncated config.json fails");
    free (want);
    if (asprintf (&want, "%s: line 3, column 1: malformed JSON: parse error: premature EOF", file) < 0)
      abort ();
    is_str (err ? err->msg : NULL, want, "load: a syntax error has the file, line and column");
    shim_error_release (&err);

    unlink (file);
    rmdir (dir);
    ok (config_load (dir, &c, NULL, NULL, &err) < 0, "load: a missing bundle fails");
    free (want);
    if (asprintf (&want, "bundle `%s`: No such file or directory", dir) < 0)
      abort ();
    is_str (err ? err->msg : NULL, want, "load: a missing bundle is named");
    shim_error_release (&err);
  }
}

/* ---- config_mount_options_parse ---- */

struct mo_case
{
  const char *name;
  const char *opts[10]; /* NULL-terminated */
  unsigned long flags, propagation;
  const char *data;
  bool is_bind;
  const char *error; /* NULL: must succeed */
};

static void
test_mount_options (void)
{
  static const struct mo_case cases[] = {
    { "none", { NULL }, 0, 0, NULL, false, NULL },
    { "flags, propagation and data split", { "nosuid", "ro", "mode=755", "size=64k", "rslave", NULL },
      MS_NOSUID | MS_RDONLY, MS_SLAVE | MS_REC, "mode=755,size=64k", false, NULL },
    { "every setting flag",
      { "nosuid", "nodev", "noexec", "ro", "sync", "dirsync", "noatime", "nodiratime", NULL },
      MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY | MS_SYNCHRONOUS | MS_DIRSYNC | MS_NOATIME | MS_NODIRATIME, 0,
      NULL, false, NULL },
    { "clearing options undo earlier ones", { "ro", "nosuid", "nodev", "noexec", "rw", "suid", "dev", "exec", NULL },
      0, 0, NULL, false, NULL },
    { "a later setting option wins over an earlier clear", { "rw", "ro", NULL }, MS_RDONLY, 0, NULL, false, NULL },
    { "bind", { "bind", NULL }, MS_BIND, 0, NULL, true, NULL },
    { "rbind", { "rbind", "ro", NULL }, MS_BIND | MS_REC | MS_RDONLY, 0, NULL, true, NULL },
    { "defaults is nothing", { "defaults", NULL }, 0, 0, NULL, false, NULL },
    { "relatime, strictatime", { "relatime", "strictatime", NULL }, MS_RELATIME | MS_STRICTATIME, 0, NULL, false,
      NULL },
    { "the last propagation wins", { "shared", "rprivate", NULL }, 0, MS_PRIVATE | MS_REC, NULL, false, NULL },
    { "private", { "private", NULL }, 0, MS_PRIVATE, NULL, false, NULL },
    { "unbindable", { "runbindable", NULL }, 0, MS_UNBINDABLE | MS_REC, NULL, false, NULL },
    { "data keeps its order", { "uid=5", "gid=5", "mode=0620", "ptmxmode=0666", "newinstance", NULL }, 0, 0,
      "uid=5,gid=5,mode=0620,ptmxmode=0666,newinstance", false, NULL },
    { "an empty option", { "ro", "", NULL }, 0, 0, NULL, false, "mounts[3].options[1]: `` is not a mount option" },
    { "a comma inside an option", { "size=1m,mode=755", NULL }, 0, 0, NULL, false,
      "mounts[3].options[0]: `size=1m,mode=755` is not a mount option" },
  };
  size_t i;

  for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    {
      const struct mo_case *t = &cases[i];
      struct shim_mount m = { 0 };
      shim_error_t err = NULL;
      size_t n = 0;
      int r;

      while (t->opts[n])
        n++;
      r = config_mount_options_parse ((char *const *) t->opts, n, &m, "mounts[3].options", &err);
      if (t->error)
        {
          ok (r < 0, "mount options: %s: fails", t->name);
          is_str (err ? err->msg : NULL, t->error, "mount options: %s: message", t->name);
        }
      else
        {
          ok (r == 0, "mount options: %s: parses", t->name);
          if (err)
            diag ("%s", err->msg);
          is_int (m.flags, t->flags, "mount options: %s: flags", t->name);
          is_int (m.propagation, t->propagation, "mount options: %s: propagation", t->name);
          is_str (m.data, t->data, "mount options: %s: data", t->name);
          ok (m.is_bind == t->is_bind, "mount options: %s: is_bind %d", t->name, t->is_bind);
        }
      free (m.data);
      shim_error_release (&err);
    }
}

/* linux.uidMappings/gidMappings, linux.devices, linux.resources.devices:
 * the typed values, defaults and the id lookup. */
static void
test_userns_and_devices (void)
{
  const char *json
      = "{\"ociVersion\": \"1.0.2\", \"root\": {\"path\": \"rootfs\"},"
        " \"process\": {\"args\": [\"x\"], \"cwd\": \"/\", \"user\": {\"uid\": 1000, \"gid\": 5}},"
        " \"linux\": {\"namespaces\": [{\"type\": \"mount\"}, {\"type\": \"user\"}],"
        "  \"uidMappings\": [{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536},"
        "                    {\"containerID\": 65536, \"hostID\": 4294967294, \"size\": 1}],"
        "  \"gidMappings\": [{\"containerID\": 0, \"hostID\": 200000, \"size\": 10}],"
        "  \"devices\": [{\"path\": \"/dev/kmsg\", \"type\": \"c\", \"major\": 1, \"minor\": 11,"
        "                 \"fileMode\": 420, \"uid\": 0, \"gid\": 4},"
        "               {\"path\": \"/dev/fifo\", \"type\": \"p\"},"
        "               {\"path\": \"/dev/ttyX\", \"type\": \"u\", \"major\": 4, \"minor\": 64}],"
        "  \"resources\": {\"devices\": [{\"allow\": false, \"access\": \"rwm\"},"
        "    {\"allow\": true, \"type\": \"c\", \"major\": 1, \"minor\": 11, \"access\": \"wr\"},"
        "    {\"allow\": true, \"type\": \"b\", \"major\": -1, \"access\": \"m\"}]}}}";
  cleanup_config struct shim_config *c = parse_str (json, NULL);
  uint32_t h = 0;

  ok (c != NULL, "userns and devices: parses");
  if (c == NULL)
    return;
  is_int (c->n_uid_mappings, 2, "two uid ranges");
  is_int (c->uid_mappings[1].host_id, 4294967294u, "uidMappings[1].hostID");
  is_int (c->n_gid_mappings, 1, "one gid range");
  is_int (c->gid_mappings[0].size, 10, "gidMappings[0].size");
  ok (config_idmap_to_host (c->uid_mappings, c->n_uid_mappings, 0, &h) == 0 && h == 100000, "uid 0 -> 100000");
  ok (config_idmap_to_host (c->uid_mappings, c->n_uid_mappings, 65535, &h) == 0 && h == 165535,
      "uid 65535 -> 165535 (last of the range)");
  ok (config_idmap_to_host (c->uid_mappings, c->n_uid_mappings, 65536, &h) == 0 && h == 4294967294u,
      "uid 65536 -> the second range");
  ok (config_idmap_to_host (c->uid_mappings, c->n_uid_mappings, 65537, &h) < 0, "uid 65537 is not mapped");
  ok (config_idmap_to_host (c->gid_mappings, c->n_gid_mappings, 10, &h) < 0, "gid 10 is not mapped");

  is_int (c->n_devices, 3, "three devices");
  is_str (c->devices[0].path, "/dev/kmsg", "devices[0].path");
  ok (c->devices[0].type == 'c' && c->devices[0].major == 1 && c->devices[0].minor == 11, "devices[0] c 1:11");
  ok (c->devices[0].has_file_mode && c->devices[0].file_mode == 0644, "devices[0].fileMode 0644");
  ok (c->devices[0].has_uid && c->devices[0].uid == 0 && c->devices[0].has_gid && c->devices[0].gid == 4,
      "devices[0] uid 0, gid 4");
  ok (c->devices[1].type == 'p' && !c->devices[1].has_file_mode && !c->devices[1].has_uid, "devices[1]: a fifo, no mode or owner");
  ok (c->devices[2].type == 'c', "devices[2]: `u` is a character device");

  ok (c->resources.has_devices, "resources.devices given");
  is_int (c->resources.n_devices, 3, "three device rules");
  ok (!c->resources.devices[0].allow && c->resources.devices[0].type == 'a' && c->resources.devices[0].major == -1
          && c->resources.devices[0].minor == -1,
      "rule 0: deny, type a by default, any major and minor");
  is_int (c->resources.devices[0].access, CGROUP_DEV_READ | CGROUP_DEV_WRITE | CGROUP_DEV_MKNOD, "rule 0: rwm");
  ok (c->resources.devices[1].allow && c->resources.devices[1].type == 'c' && c->resources.devices[1].major == 1
          && c->resources.devices[1].minor == 11,
      "rule 1: allow c 1:11");
  is_int (c->resources.devices[1].access, CGROUP_DEV_READ | CGROUP_DEV_WRITE, "rule 1: `wr` is read and write");
  ok (c->resources.devices[2].type == 'b' && c->resources.devices[2].major == -1, "rule 2: b, major -1 is any");
  is_int (c->resources.devices[2].access, CGROUP_DEV_MKNOD, "rule 2: m");

  /* Joining a user namespace: the given maps are the namespace's own. */
  {
    struct warnings w = { 0 };
    cleanup_free char *j = minimal_with ("\"x\": 0");
    cleanup_config struct shim_config *c2 = NULL;
    char *p = strstr (j, "[{\"type\": \"mount\"}]");
    cleanup_free char *j2 = NULL;
    if (p == NULL || asprintf (&j2, "%.*s[{\"type\": \"mount\"}, {\"type\": \"user\", \"path\": "
                               "\"/proc/1/ns/user\"}], \"uidMappings\": [{\"containerID\": 0, \"hostID\": 1, "
                               "\"size\": 1}]%s", (int) (p - j), j, p + strlen ("[{\"type\": \"mount\"}]")) < 0)
      abort ();
    c2 = parse_str (j2, &w);
    ok (c2 != NULL, "a joined user namespace with mappings parses");
    has_str (w.text, "linux.uidMappings: ignored: the user namespace joined by path has its own mappings",
             "and warns that they are ignored");
  }
}

/* The two lists and parsers outside config_parse: the mount option
 * names `features` prints (mount(2) flags, then the propagation names), and
 * `update --resources`, a linux.resources object as a whole document. */
static void
test_option_names_and_update (void)
{
  const char *json = "{\"memory\": {\"limit\": 1048576}, \"pids\": {\"limit\": 10}}";
  const char nul[] = "{\"pids\": {\"limit\": 1}}\0";
  struct cgroup_resources r;
  shim_error_t err = NULL;
  size_t i, n_prop = 0;
  bool has_ro = false;

  for (i = 0; config_mount_option_name (i) != NULL; i++)
    {
      const char *o = config_mount_option_name (i);
      has_ro = has_ro || strcmp (o, "ro") == 0;
      if (strstr (o, "private") || strstr (o, "shared") || strstr (o, "slave") || strstr (o, "unbindable"))
        n_prop++;
    }
  ok (has_ro, "mount option names: ro");
  is_int (n_prop, 8, "mount option names: the 8 propagations");
  is_str (config_mount_option_name (i - 1), "runbindable", "mount option names: propagations come last");

  ok (config_resources_parse (json, strlen (json), &r, &err) == 0, "update resources parse");
  ok (r.has_memory_limit && r.memory_limit == 1048576, "update: memory.limit");
  ok (r.has_pids_limit && r.pids_limit == 10, "update: pids.limit");
  ok (!r.has_cpu_shares, "update: no cpu.shares unless given");
  config_resources_free (&r);

  ok (config_resources_parse ("{\"pids\": ", 9, &r, &err) < 0, "update: malformed JSON fails");
  has_str (err ? err->msg : "", "line 1, column", "update: with line and column");
  config_resources_free (&r);
  shim_error_release (&err);
  ok (config_resources_parse (nul, sizeof (nul) - 1, &r, &err) < 0, "update: a NUL byte fails");
  is_str (err ? err->msg : "", "contains a NUL byte", "update: and says so");
  config_resources_free (&r);
  shim_error_release (&err);
  ok (config_resources_parse ("{\"pids\": {\"limit\": \"x\"}}", 24, &r, &err) < 0, "update: a bad type fails");
  is_str (err ? err->msg : "", "resources.pids.limit: expected integer, got string", "update: names the path");
  config_resources_free (&r);
  shim_error_release (&err);
}

int
main (void)
{
  test_bad_corpus ();
  test_full ();
  test_defaults ();
  test_terminal ();
  test_blkio_weight_zero ();
  test_root_paths ();
  test_resources ();
  test_warnings ();
  test_unknown_fields ();
  test_examples ();
  test_misc_errors ();
  test_mount_options ();
  test_userns_and_devices ();
  test_option_names_and_update ();
  return done_testing ();
}
