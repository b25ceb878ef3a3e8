/* SPDX-License-Identifier: Apache-2.0 */
/* Every final verdict kept where people look (docs/DESIGN.md "Kept"): the
 * systemd journal, a bounded history of verdicts that outlives the
 * engine's delete, and node_exporter textfile counters.  The runtime
 * (`run`, `delete`) and the hook (poststop) tell each death once, with
 * history_tell; `shim verdicts` and `shim-oom-hook list` read the history
 * back with the same code.
 *
 * The store is one file per death, NAME = 20-digit realtime ns, pid and a
 * random word ("00000001733450000123456789-4242-0badf00d.json"): names
 * never collide between writers and sort by time, so there is no index and
 * no lock.  Each file is written to a dot-name and renamed (fdatasync
 * first: it is written at death, off any start path).  After each write
 * the store is pruned, oldest first, to its count, size and age limits.
 * Nothing here fails a container: a full disk or an unwritable directory
 * is a warning. */
#ifndef SHIM_HISTORY_H
#define SHIM_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/util.h"
#include "verdict/verdict.h"

#define HISTORY_DEFAULT_DIR "/var/lib/shim/history"
/* The metrics file in the metrics directory (node_exporter reads *.prom). */
#define HISTORY_METRICS_FILE "shim.prom"

struct history_limits
{
  uint64_t keep_count;   /* records; 0: no limit */
  uint64_t keep_bytes;   /* their total size; 0: no limit */
  int64_t keep_seconds;  /* their age; 0: no limit */
};

/* Defaults: 1000 records, 16 MiB, 30 days. */
#define HISTORY_KEEP_COUNT 1000
#define HISTORY_KEEP_BYTES (16ULL << 20)
#define HISTORY_KEEP_SECONDS (30LL * 24 * 3600)

struct history_config
{
  const char *dir;         /* NULL: no history (why in dir_why) */
  const char *dir_why;
  const char *metrics_dir; /* NULL: no metrics */
  struct history_limits limits;
  bool journal;            /* send to the journal (false only in tests of the rest) */
  char dir_buf[4096];
};

/* The defaults and the environment: SHIM_HISTORY_DIR (empty: off),
 * SHIM_METRICS_DIR, SHIM_HISTORY_KEEP, SHIM_HISTORY_KEEP_BYTES,
 * SHIM_HISTORY_KEEP_DAYS.  Root's history is HISTORY_DEFAULT_DIR; a
 * rootless one's (util_rootless: podman's user namespace too)
 * $XDG_DATA_HOME/shim/history, else ~/.local/share/shim/history from
 * $HOME, else from the passwd entry of the uid outside the user namespace;
 * none without a home.  A bad number is a warning; the default stays. */
void history_config_init (struct history_config *c);

/* The engine's names for a container, from its config.json annotations
 * (containerd's CRI, CRI-O, nerdctl, Kubernetes): pointers into kv, NULL
 * when not there.  A name only finds a record; it never enters a verdict. */
struct history_names
{
  const char *name;
  const char *pod;
  const char *pod_namespace;
};
void history_names_from_annotations (const struct util_kv *kv, size_t n, struct history_names *out);
/* The annotation podman 4 puts on its containers (io.container.manager). */
#define HISTORY_PODMAN_MANAGER_KEY "io.container.manager"
#define HISTORY_PODMAN_MANAGER "libpod"
/* The container's name in a hosts file's TEXT: the first alias after
 * HOSTNAME on the line that names HOSTNAME, when it is a valid container
 * name.  Pure; *name is malloc'd, or NULL when there is none. */
int history_name_from_hosts (const char *text, const char *hostname, char **name);
/* podman's name of the container of BUNDLE: its config.json's hostname
 * looked up in the hosts file it mounts on /etc/hosts (podman's own file,
 * written before the workload runs).  Best effort: *name NULL. */
void history_name_podman (const char *bundle, char **name);

/* One death, as told. */
struct history_event
{
  const char *id;
  struct history_names names;
  const char *source; /* "run", "delete", "hook" */
  const struct verdict *v;
  const char *verdict_json; /* v's JSON (verdict_to_json) */
  int64_t time_ns;          /* realtime */
};

/* The journal, the history and the metrics, each as configured; every
 * failure is a warning, once.  json may be NULL: made here. */
void history_tell (const struct history_config *c, const char *id, const struct history_names *names,
                   const char *source, const struct verdict *v);

/* ---- the journal ---- */

/* The journal's fields of E ("KEY=value", malloc'd, *n of them): MESSAGE,
 * PRIORITY, SYSLOG_IDENTIFIER=IDENT and the SHIM_* fields.  Pure. */
int history_journal_fields (const struct history_event *e, const char *ident, char ***out, size_t *n);
void history_journal_fields_free (char **f, size_t n);
/* syslog priority of a verdict: OOMKilled 4 (warning), Unknown 4, Killed
 * and Signaled 5 (notice), Exited non-zero 5, Exited 0 6 (info). */
int history_journal_priority (const struct verdict *v);
/* Send them to journald; no journal socket is no error and prints nothing
 * (0).  _at: to the native socket at SOCKET_PATH (tests). */
int history_journal_send (const struct history_event *e, const char *ident, shim_error_t *err);
int history_journal_send_at (const char *socket_path, const struct history_event *e, const char *ident,
                             shim_error_t *err);

/* ---- the store ---- */

/* A record's file name: TIME_NS, PID and RND as above, and the record's
 * SIZE in bytes, so that pruning needs no stat of every record (measured:
 * the fstatat of 500 records was a tenth of a `shim run`).  Pure. */
void history_file_name (int64_t time_ns, pid_t pid, uint32_t rnd, uint64_t size, char *buf, size_t len);
/* Its time, or -1 when NAME is not a record's name. */
int64_t history_file_time (const char *name);
/* The size a record's name says, or -1 when it says none (a record
 * written before the size was in the name: TIME_NS-PID-RND.json). */
int64_t history_file_size (const char *name);

struct history_file
{
  char *name;
  uint64_t size;
  int64_t time_ns;
};

/* Which of F (sorted oldest first) pruning removes to keep within L at
 * NOW_NS: the oldest first, never the newest, never one newer than one
 * kept.  Pure. */
void history_prune_choose (const struct history_file *f, size_t n, const struct history_limits *l, int64_t now_ns,
                           bool *remove);

/* The record's JSON: {"id","name","pod","namespace","source","time","verdict"}. */
int history_record_json (const struct history_event *e, char **out, shim_error_t *err);

/* Write E's record into DIR (made if missing, 0700) and prune. */
int history_store_write (const char *dir, const struct history_limits *l, const struct history_event *e,
                         shim_error_t *err);

/* A record read back. */
struct history_record
{
  char *file;
  char *json; /* the file's text, one object */
  int64_t time_ns;
  char *time, *id, *name, *pod, *pod_namespace, *source, *reason, *message;
  int oom_killed; /* enum verdict_tri */
  bool have_exit_code;
  int64_t exit_code;
  char *signal;
  bool have_peak;
  uint64_t peak;
};

/* Parse one record's text.  Pure. */
int history_record_parse (const char *json, struct history_record *r, shim_error_t *err);
void history_record_release (struct history_record *r);
/* MATCH: NULL or "" matches all; else an id prefix or the engine's name
 * (the container's, or "POD/NAME", "NAMESPACE/POD/NAME").  Pure. */
bool history_record_matches (const struct history_record *r, const char *match);

/* The records of DIR, oldest first, at or after SINCE_NS (0: all) that
 * MATCH; a missing DIR has none.  Unreadable records are skipped with a
 * warning. */
int history_read (const char *dir, int64_t since_ns, const char *match, struct history_record **out, size_t *n,
                  shim_error_t *err);
void history_records_free (struct history_record *r, size_t n);

/* The records as `shim verdicts` prints them: a table (TIME ID NAME REASON
 * OOM_KILLED EXIT PEAK SOURCE) or a JSON array of the records.  Pure;
 * *out malloc'd. */
int history_format (const struct history_record *r, size_t n, bool json, char **out);

/* `shim verdicts` and `shim-oom-hook list`, one code: the records of DIR
 * matching MATCH (NULL: all) since SINCE (NULL: all, else as
 * history_parse_since), formatted into *out. */
int history_show (const char *dir, const char *match, const char *since, bool json, char **out, shim_error_t *err);

/* --since: RFC 3339 ("2026-12-06T02:00:00Z"), a Unix time "@SECONDS", or
 * an age "90s", "15m", "2h", "7d" before NOW_NS.  Pure. */
int history_parse_since (const char *s, int64_t now_ns, int64_t *out, shim_error_t *err);

/* ---- the metrics ---- */

#define HISTORY_N_REASONS 5 /* enum verdict_reason */
#define HISTORY_N_SCOPES 4  /* none, container, ancestor, nested */
typedef uint64_t history_counts_t[HISTORY_N_REASONS][HISTORY_N_SCOPES];

/* The scope label of V: "container", "ancestor", "nested" (OOM kills in
 * nested cgroups only) or "none" (no OOM kill). */
int history_metrics_scope (const struct verdict *v);
/* Parse our own textfile (unknown lines ignored); write it.  Pure. */
void history_metrics_parse (const char *text, history_counts_t counts);
int history_metrics_text (const history_counts_t counts, char **out);
/* Count V's death in DIR/shim.prom: under DIR/.shim.prom.lock (waited
 * for at most 2 s), read, add one, write a dot-file and rename. */
int history_metrics_count (const char *dir, const struct verdict *v, shim_error_t *err);

#endif
