/* SPDX-License-Identifier: Apache-2.0 */
/* shim-oom-hook: main(), the options, and the three things it does:
 * arm the watcher (createRuntime / prestart), write the verdict
 * (poststop), show a stored verdict.  The only place errors are printed. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/mark.h"
#include "history/history.h"
#include "hooks/hook_state.h"
#include "hooks/hook_store.h"
#include "hooks/hook_verdict.h"
#include "hooks/hook_watch.h"
#include "common/version.h"
#include "common/log.h"
#include "common/util.h"
#include "evidence/watcher.h"


/* The state is small; anything this large is not a state. */
#define STATE_MAX (4 << 20)

struct opts
{
  const char *dir;
  bool opt_in;
  struct hook_arm_opts arm;
  int wait_ms;
  struct hook_gc_policy gc;
  bool json;
  const char *since;
  struct history_config history;
};

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: shim-oom-hook [OPTIONS] [createRuntime | prestart | poststop]  < state.json\n"
           "       shim-oom-hook [--dir DIR] show [--json] ID\n"
           "       shim-oom-hook [--history-dir DIR] list [--json] [--since TIME] [ID|PREFIX|NAME]\n"
           "\n"
           "As an OCI hook (the state on stdin; the stage is read from its status when not named):\n"
           "  createRuntime, prestart  arm a detached watcher on the container's cgroup\n"
           "  poststop                 write the verdict to DIR/ID/verdict.json, print it on stderr\n"
           "  show ID                  print a stored verdict (--json: as one JSON line)\n"
           "  list                     the verdict history, as `shim verdicts` (--json: an array;\n"
           "                           --since 2026-12-06T02:00:00Z, @UNIX_SECONDS, 90s, 15m, 2h, 7d)\n"
           "\n"
           "options:\n"
           "  --dir DIR          verdict directory (default " HOOK_DEFAULT_DIR ")\n"
           "  --opt-in           only containers annotated " HOOK_ANNOTATION "=true\n"
           "                     (default: all but those annotated false)\n"
           "  --no-oom-group     leave memory.oom.group as the runtime set it\n"
           "  --no-oom-file      do not create <bundle>/oom (podman's OOMKilled marker)\n"
           "  --wait SECONDS     poststop: wait this long for the watcher's last record (default 5)\n"
           "  --keep-days N      cleanup: remove verdicts older than N days (default 7)\n"
           "  --keep N           cleanup: keep at most the N newest verdicts (default 1000)\n"
           "  --history-dir DIR  poststop: also keep the verdict there, as shim does (default\n"
           "                     $SHIM_HISTORY_DIR, else " HISTORY_DEFAULT_DIR "; \"\": none)\n"
           "  --metrics-dir DIR  poststop: count the death in DIR/" HISTORY_METRICS_FILE " (default\n"
           "                     $SHIM_METRICS_DIR, else none)\n"
           "  --log FILE, --log-format text|json, --debug, --version, --help\n");
}

static int
read_state (struct hook_state *st, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0, cap = 0;

  if (isatty (STDIN_FILENO))
    return shim_error_plain (err, EINVAL, "the OCI state is expected on stdin");
  for (;;)
    {
      ssize_t r;
      if (cap - len < 2)
        {
          char *n;
          if (cap >= STATE_MAX)
            return shim_error_plain (err, EINVAL, "the state on stdin is larger than %d bytes",
                                     STATE_MAX);
          cap = cap ? cap * 2 : 4096;
          n = realloc (buf, cap);
          if (n == NULL)
            return shim_error_errno (err, "read the state on stdin");
          buf = n;
        }
      r = read (STDIN_FILENO, buf + len, cap - len - 1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return shim_error_errno (err, "read the state on stdin");
      if (r == 0)
        break;
      len += (size_t) r;
    }
  if (len == 0)
    return shim_error_plain (err, EINVAL, "no state on stdin (it is empty)");
  buf[len] = '\0';
  return hook_state_parse (buf, st, err);
}

static bool
switched_on (const struct opts *o, const struct hook_state *st)
{
  if (st->annotation == HOOK_SWITCH_UNSET)
    return !o->opt_in;
  return st->annotation == HOOK_SWITCH_ON;
}

/* createRuntime / prestart.  Failing here would fail the container's start,
 * so trouble with the cgroup is a warning, recorded in meta.json for the
 * verdict to explain; only a state that names no process is an error. */
static int
do_arm (const struct opts *o, const struct hook_state *st, shim_error_t *err)
{
  cleanup_close int store = -1, cfd = -1;
  struct hook_meta meta;
  shim_error_t armerr = NULL;
  int r;

  if (st->pid <= 0)
    return shim_error_plain (err, EINVAL,
                             "the state of container %s has no pid: arming needs the createRuntime "
                             "or prestart state",
                             st->id);
  if (hook_store_open (o->dir, true, &store, &armerr) < 0)
    {
      log_msg (LOG_WARNING, "container %s is not watched: %s", st->id,
               armerr ? armerr->msg : "out of memory");
      shim_error_release (&armerr);
      return 0;
    }
  r = hook_watch_arm (store, st, &o->arm, &meta, &cfd, &armerr);
  if (r == 1)
    log_msg (LOG_DEBUG, "container %s is already watched", st->id);
  else if (r < 0)
    {
      log_msg (LOG_WARNING, "container %s is not watched: %s", st->id,
               armerr ? armerr->msg : "out of memory");
      meta.error = armerr ? steal_pointer (&armerr->msg) : NULL;
      shim_error_release (&armerr);
      if (cfd >= 0 && hook_store_meta_write (cfd, &meta, &armerr) < 0)
        log_error_release (&armerr);
    }
  else
    log_msg (LOG_DEBUG, "container %s: watching cgroup %s (memory.oom.group: %s)", st->id,
             meta.cgroup, meta.oom_group);
  hook_store_meta_release (&meta);
  return 0;
}

/* Why there is no record, for the verdict's message. */
static char *
why_no_record (struct hook_meta *meta, bool have_meta, const char *dir)
{
  char *why = NULL;
  int n;

  if (have_meta && meta->error)
    n = asprintf (&why, "the watcher could not be armed: %s", meta->error);
  else if (have_meta)
    n = asprintf (&why, "the watcher left no record in %s", dir);
  else
    n = asprintf (&why,
                  "no watcher record in %s: the hook did not arm for this container (register it "
                  "at createRuntime or prestart, with the same --dir)",
                  dir);
  return n < 0 ? NULL : why;
}

/* Turn the record (if any) into a verdict; *kind says what it was worth. */
static void
verdict_from_store (int cfd, const struct opts *o, const char *id, struct hook_meta *meta,
                    bool *have_meta, struct verdict *v, enum hook_record_kind *kind)
{
  struct watcher_record rec;
  cleanup_free char *why = NULL;
  shim_error_t tmp = NULL;
  bool have_rec;

  *have_meta = hook_store_meta_read (cfd, meta, &tmp) == 0;
  shim_error_release (&tmp);
  have_rec = watcher_record_read (cfd, HOOK_RECORD, &rec, &tmp) == 0;
  if (!have_rec && tmp && tmp->status != ENOENT)
    {
      if (asprintf (&why, "the watcher's record is unreadable: %s", tmp->msg) < 0)
        why = NULL;
    }
  else if (!have_rec)
    why = why_no_record (meta, *have_meta, o->dir);
  shim_error_release (&tmp);
  *kind = hook_verdict_compute (id, have_rec ? &rec : NULL, why, *have_meta ? meta->pid : 0, v);
}

static void
print_human (const char *message, const char *hint)
{
  log_msg (LOG_INFO, "%s%s%s", message, hint ? "; hint: " : "", hint ? hint : "");
  if (!log_debug_enabled ())
    fprintf (stderr, "shim-oom-hook: %s%s%s\n", message, hint ? "; hint: " : "", hint ? hint : "");
}

static int
do_poststop (const struct opts *o, const struct hook_state *st, shim_error_t *err)
{
  cleanup_close int store = -1, cfd = -1, bundle_fd = -1;
  cleanup_free char *doc = NULL;
  struct hook_meta meta = { 0 };
  enum hook_record_kind kind;
  struct verdict v;
  shim_error_t tmp = NULL;
  const char *bundle;
  bool have_meta, oom_file = false;
  int r;

  if (hook_store_open (o->dir, true, &store, err) < 0)
    return -1;
  if (hook_store_open_container (store, st->id, &cfd, &tmp) < 0)
    {
      shim_error_release (&tmp);
      if (hook_store_fresh (store, st->id, &cfd, err) < 0)
        return -1;
    }
  if (!hook_store_wait_watcher (cfd, o->wait_ms))
    log_msg (LOG_WARNING,
             "container %s: the watcher has not finished after %d ms; using its record so far",
             st->id, o->wait_ms);
  verdict_from_store (cfd, o, st->id, &meta, &have_meta, &v, &kind);

  bundle = st->bundle ? st->bundle : meta.bundle;
  if (v.oom_killed == VERDICT_TRUE && o->arm.oom_file && bundle)
    {
      bundle_fd = open (bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (bundle_fd < 0 || mark_oom (bundle_fd, &v, &tmp) < 0)
        {
          log_msg (LOG_WARNING, "container %s: cannot create `%s/oom`: %s", st->id, bundle,
                   tmp ? tmp->msg : strerror (errno));
          shim_error_release (&tmp);
        }
      else
        oom_file = true;
    }
  r = hook_verdict_document (st->id, &v, kind, have_meta ? &meta : NULL, oom_file, &doc, err);
  if (r == 0)
    {
      /* The name taken at arming (podman's, from its hosts file) when
       * the poststop state's annotations have none. */
      struct history_names names = { .name = st->name ? st->name : have_meta ? meta.name : NULL };
      history_tell (&o->history, st->id, &names, "hook", &v);
    }
  hook_store_meta_release (&meta);
  if (r < 0 || util_write_file_atomic_at (cfd, HOOK_VERDICT, doc, strlen (doc), 0644, err) < 0)
    return shim_error_prefix (err, "container %s", st->id);
  print_human (v.message, v.hint[0] ? v.hint : NULL);
  if (hook_store_gc (store, &o->gc, &tmp) < 0)
    log_msg (LOG_WARNING, "cleanup of %s: %s", o->dir, tmp->msg);
  shim_error_release (&tmp);
  return 0;
}

static int
do_show (const struct opts *o, const char *typed, shim_error_t *err)
{
  cleanup_close int store = -1, cfd = -1;
  cleanup_free char *text = NULL, *id = NULL;
  struct hook_shown shown;
  shim_error_t tmp = NULL;
  size_t others;

  if (hook_state_id_check (typed, err) < 0 || hook_store_open (o->dir, false, &store, err) < 0)
    return -1;
  if (hook_store_resolve_id (store, typed, &id, &others, err) < 0)
    return shim_error_prefix (err, "%s", o->dir);
  if (others > 0)
    fprintf (stderr, "shim-oom-hook: %zu earlier container%s named %s; showing the latest, %s\n",
             others, others == 1 ? " was" : "s were", typed, id);
  if (hook_store_open_container (store, id, &cfd, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return shim_error_plain (err, ENOENT, "no verdict for container %s in %s", id, o->dir);
    }
  if (util_read_file_at (cfd, HOOK_VERDICT, &text, NULL, &tmp) < 0)
    {
      struct hook_meta meta;
      struct verdict v;
      enum hook_record_kind kind;
      bool have_meta;
      char *json = NULL;

      if (tmp->status != ENOENT)
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp);
      if (hook_store_watcher_running (cfd))
        return shim_error_plain (err, EAGAIN, "container %s is still running: no verdict yet", id);
      /* The poststop hook did not run (or not yet): the same verdict, from
       * the record, not stored. */
      verdict_from_store (cfd, o, id, &meta, &have_meta, &v, &kind);
      hook_store_meta_release (&meta);
      fprintf (stderr, "shim-oom-hook: no poststop verdict for %s; computed from the watcher's "
                       "record (%s)\n",
               id, hook_verdict_record_kind_name (kind));
      if (o->json)
        {
          if (verdict_to_json (&v, &json, err) < 0)
            return -1;
          printf ("%s\n", json);
          free (json);
        }
      else
        printf ("%s\n%s%s%s", v.message, v.hint[0] ? "hint: " : "", v.hint, v.hint[0] ? "\n" : "");
      return 0;
    }
  if (hook_verdict_parse_document (text, &shown, err) < 0)
    return shim_error_prefix (err, "%s/%s", o->dir, id);
  if (o->json)
    printf ("%s\n", shown.verdict_json);
  else
    printf ("%s\n%s%s%s", shown.message ? shown.message : "", shown.hint ? "hint: " : "",
            shown.hint ? shown.hint : "", shown.hint ? "\n" : "");
  hook_verdict_shown_release (&shown);
  return 0;
}

static int
run (struct opts *o, int argc, char **argv, shim_error_t *err)
{
  struct hook_state st;
  enum hook_stage stage;
  int r;

  if (argc >= 1 && strcmp (argv[0], "list") == 0)
    {
      cleanup_free char *out = NULL;
      if (argc > 2)
        return shim_error_plain (err, EINVAL, "usage: shim-oom-hook list [--json] [--since TIME] [ID|PREFIX|NAME]");
      if (o->history.dir == NULL)
        return shim_error_plain (err, ENOENT, "no verdict history: %s", o->history.dir_why);
      if (history_show (o->history.dir, argc == 2 ? argv[1] : NULL, o->since, o->json, &out, err) < 0)
        return -1;
      fputs (out, stdout);
      return 0;
    }
  if (argc >= 1 && strcmp (argv[0], "show") == 0)
    {
      if (argc != 2)
        return shim_error_plain (err, EINVAL, "usage: shim-oom-hook show [--json] ID");
      return do_show (o, argv[1], err);
    }
  if (argc > 1)
    return shim_error_plain (err, EINVAL, "one stage at most, got `%s %s`", argv[0], argv[1]);
  if (argc == 1 && hook_state_stage_parse (argv[0], &stage, err) < 0)
    return -1;
  if (read_state (&st, err) < 0)
    return -1;
  if (argc == 0 && hook_state_stage_from_status (st.status, &stage, err) < 0)
    r = -1;
  else if (!switched_on (o, &st))
    {
      log_msg (LOG_DEBUG, "container %s is switched off by its annotations", st.id);
      r = 0;
    }
  else
    r = stage == HOOK_STAGE_ARM ? do_arm (o, &st, err) : do_poststop (o, &st, err);
  hook_state_release (&st);
  return r;
}

static int
parse_int (const char *name, const char *s, int min, int max, int *out)
{
  int64_t v;

  if (util_parse_i64 (s, &v) < 0 || v < min || v > max)
    {
      log_msg (LOG_ERROR, "%s: `%s` is not a number from %d to %d", name, s, min, max);
      return -1;
    }
  *out = (int) v;
  return 0;
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "dir", required_argument, NULL, 'D' },
    { "opt-in", no_argument, NULL, 'i' },
    { "no-oom-group", no_argument, NULL, 'G' },
    { "no-oom-file", no_argument, NULL, 'F' },
    { "wait", required_argument, NULL, 'w' },
    { "keep-days", required_argument, NULL, 'k' },
    { "keep", required_argument, NULL, 'K' },
    { "json", no_argument, NULL, 'j' },
    { "since", required_argument, NULL, 'S' },
    { "history-dir", required_argument, NULL, 'H' },
    { "metrics-dir", required_argument, NULL, 'M' },
    { "log", required_argument, NULL, 'l' },
    { "log-format", required_argument, NULL, 'f' },
    { "debug", no_argument, NULL, 'd' },
    { "version", no_argument, NULL, 'v' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct opts o = {
    .dir = HOOK_DEFAULT_DIR,
    .arm = { .oom_group = true, .oom_file = true },
    .wait_ms = 5000,
    .gc = { .keep_days = 7, .keep_count = 1000 },
  };
  const char *log_path = NULL, *log_format = "text";
  bool debug = false;
  shim_error_t err = NULL;
  int c, secs;

  history_config_init (&o.history);
  while ((c = getopt_long (argc, argv, "h", longopts, NULL)) != -1)
    switch (c)
      {
      case 'D': o.dir = optarg; break;
      case 'i': o.opt_in = true; break;
      case 'G': o.arm.oom_group = false; break;
      case 'F': o.arm.oom_file = false; break;
      case 'w':
        if (parse_int ("--wait", optarg, 0, 3600, &secs) < 0)
          return 1;
        o.wait_ms = secs * 1000;
        break;
      case 'k':
        if (parse_int ("--keep-days", optarg, 0, 36500, &o.gc.keep_days) < 0)
          return 1;
        break;
      case 'K':
        if (parse_int ("--keep", optarg, 0, 1000000, &o.gc.keep_count) < 0)
          return 1;
        break;
      case 'j': o.json = true; break;
      case 'S': o.since = optarg; break;
      case 'H':
        o.history.dir = *optarg ? optarg : NULL;
        o.history.dir_why = "--history-dir is empty";
        break;
      case 'M': o.history.metrics_dir = *optarg ? optarg : NULL; break;
      case 'l': log_path = optarg; break;
      case 'f': log_format = optarg; break;
      case 'd': debug = true; break;
      case 'v':
        printf ("shim-oom-hook version %s\ncommit: %s\n", SHIM_VERSION, SHIM_COMMIT);
        return 0;
      case 'h':
        usage (stdout);
        return 0;
      default:
        usage (stderr);
        return 1;
      }
  if (log_init ("shim-oom-hook", log_path, log_format, debug, &err) < 0)
    {
      log_error_release (&err);
      return 1;
    }
  if (run (&o, argc - optind, argv + optind, &err) < 0)
    {
      log_error_release (&err);
      return 1;
    }
  return 0;
}
