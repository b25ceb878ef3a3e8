/* SPDX-License-Identifier: Apache-2.0 */
/* libshim's interface for the command line: one call per command.  Nothing
 * here parses an argv or prints: errors go up in *err (the caller prints
 * them), and what a command shows (state JSON, lists, event lines, the
 * verdict) is handed back as data or through a callback. */
#ifndef SHIM_RUNTIME_H
#define SHIM_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "common/error.h"
#include "verdict/verdict.h"

struct history_config;

/* Where the containers' state dirs are when --root is not given: for
 * root; runtime_default_root says where for anyone. */
#define RUNTIME_DEFAULT_ROOT "/run/shim"

/* RUNTIME_DEFAULT_ROOT, or, for a caller that is not root and has an
 * XDG_RUNTIME_DIR, "$XDG_RUNTIME_DIR/shim" (as runc's root is
 * $XDG_RUNTIME_DIR/runc then).  Static storage. */
const char *runtime_default_root (void);

/* What every command needs from the global options. */
struct runtime_ctx
{
  const char *root;    /* --root: the state dirs */
  bool systemd_cgroup; /* --systemd-cgroup: cgroupsPath is slice:prefix:name */
  /* --allow-unenforced-limits before the command (podman's --runtime-flag
   * puts it there): as the create and run option of the same name. */
  bool allow_unenforced;
  /* Where every final verdict is told (history/history.h): the journal,
   * the verdict history, the metrics; NULL tells nothing. */
  const struct history_config *history;
};

/* create and run: the bundle, and how to bring it up. */
struct runtime_create_opts
{
  const char *bundle;
  const char *id;             /* run: NULL for one made from the bundle's name */
  const char *pid_file;       /* written once init is ready, or NULL */
  const char *console_socket; /* with process.terminal, or NULL */
  bool no_pivot;
  bool allow_unenforced;
  bool has_memory; /* run --memory */
  int64_t memory;
  unsigned int preserve_fds; /* fds 3..3+N-1 of the caller passed on */
  /* run --keep: the cgroup outlives init, emptied, with its values, until
   * `delete` (runc keeps it so); set together with runtime_run_opts.keep. */
  bool keep_cgroup;
  /* The caller is init's subreaper and tells the verdict with init's wait
   * status (runtime_verdict_reaped, which writes Kubernetes'
   * termination-log): the watcher, which may not know the status, leaves
   * that file to it. */
  bool reaper_verdict;
};

/* create: init waits on exec.sock for `start`; it is inherited by the
 * caller's subreaper (conmon, containerd-shim). */
int runtime_create (const struct runtime_ctx *ctx, const struct runtime_create_opts *o, shim_error_t *err);

/* start: release a created container's init, then the poststart hooks. */
int runtime_start (const struct runtime_ctx *ctx, const char *id, shim_error_t *err);

/* kill: SIG to init, or with ALL to every process of the cgroup. */
int runtime_kill (const struct runtime_ctx *ctx, const char *id, int sig, bool all, shim_error_t *err);

/* delete: a stopped (or created) container; FORCE kills a running one
 * first, and makes a missing one no error. */
int runtime_delete (const struct runtime_ctx *ctx, const char *id, bool force, shim_error_t *err);

struct runtime_run_opts
{
  struct runtime_create_opts c;
  bool detach; /* start it and return; `delete` removes it */
  bool keep;   /* keep the stopped container (and its verdict) for `state` */
  /* In the foreground, called as soon as the verdict is known (before the
   * teardown and the poststop hooks); may be NULL. */
  void (*on_verdict) (const struct verdict *v, int exit_code, void *opaque);
  void *opaque;
};

/* run: create and start; in the foreground, wait for init as its parent.
 * *exit_code: init's (128+N for a signal), 0 when detached. */
int runtime_run (const struct runtime_ctx *ctx, const struct runtime_run_opts *o, int *exit_code,
                 shim_error_t *err);

struct runtime_exec_opts
{
  const char *id;
  const char *process_file;  /* --process FILE, or NULL: the container's process with args */
  char *const *args;         /* the command, n_args of them */
  size_t n_args;
  char *const *env;          /* KEY=VALUE each, replacing or added */
  size_t n_env;
  const char *cwd;           /* or NULL */
  const char *user;          /* UID[:GID], numeric, or NULL */
  const gid_t *additional_gids; /* added to the process's, n_additional_gids of them */
  size_t n_additional_gids;
  unsigned int preserve_fds; /* fds 3..3+N-1 of the caller passed on */
  char *const *cgroups;      /* --cgroup [CTRLS:]PATH each: the sub-cgroups to run in */
  size_t n_cgroups;
  bool tty;
  bool no_new_privs;
  bool detach;
  bool ignore_paused;
  const char *pid_file;       /* or NULL */
  const char *console_socket; /* or NULL */
};

/* exec: another process in a running container; *exit_code is its exit
 * code (0 with detach). */
int runtime_exec (const struct runtime_ctx *ctx, const struct runtime_exec_opts *o, int *exit_code,
                  shim_error_t *err);

/* state: the state JSON (malloc'd); a stopped container's has the verdict
 * in its annotations. */
int runtime_state (const struct runtime_ctx *ctx, const char *id, char **json, shim_error_t *err);

/* The verdict of a stopped container whose init the caller reaped (a
 * containerd shim, init's subreaper): STATUS is init's wait status, which
 * the watcher may not know (before Linux 6.15 without taskstats); WAIT_MS
 * as delete waits for the watcher's last record. */
int runtime_verdict_reaped (const struct runtime_ctx *ctx, const char *id, int status, int wait_ms,
                            struct verdict *v, shim_error_t *err);

struct runtime_list_entry
{
  char *id;
  pid_t pid; /* 0 once stopped */
  const char *status;
  char *bundle;
  char *created;
  uid_t owner;
  char *state_json; /* with want_json */
};

/* list: the containers under the root (none when the root is missing),
 * sorted by id as runc lists them; half-made ones and, with want_json,
 * those whose state cannot be made are left out. */
int runtime_list (const struct runtime_ctx *ctx, bool want_json, struct runtime_list_entry **out, size_t *n,
                  shim_error_t *err);
void runtime_list_free (struct runtime_list_entry *e, size_t n);

struct runtime_ps_entry
{
  char *pid; /* as cgroup.procs has it */
};

/* ps: the processes of a container's cgroup and of the cgroups below it. */
int runtime_ps (const struct runtime_ctx *ctx, const char *id, struct runtime_ps_entry **out, size_t *n,
                shim_error_t *err);
void runtime_ps_free (struct runtime_ps_entry *e, size_t n);

/* ps ID PS_ARGS: ps(1) run with ps_args (n_args of them; fork and exec,
 * bounded in time and size), its table (malloc'd) cut down as runc's: the
 * header, then the lines whose PID column is one of the container's. */
int runtime_ps_table (const struct runtime_ctx *ctx, const char *id, char *const *ps_args, size_t n_args,
                      char **table, shim_error_t *err);

/* events: one JSON line (no newline) per event, to emit: with stats_once
 * one stats event; else the container's oom events as they happen and its
 * stats every interval_ms, until its cgroup is empty or gone, or emit
 * returns < 0 (the line could not be written). */
int runtime_events (const struct runtime_ctx *ctx, const char *id, bool stats_once, int interval_ms,
                    int (*emit) (const char *line, void *opaque), void *opaque, shim_error_t *err);

/* stats: the container's cgroup figures as data, for a caller that encodes
 * them itself (containerd's Stats): those of `events --stats` (a limit
 * that is no limit reads 0), and memory.stat whole, each key as the kernel
 * names it (v1's total_inactive_file, v2's inactive_file).  ENOENT when
 * the container has no cgroup (any more). */
#define RUNTIME_MEMORY_STAT_MAX 128
struct runtime_stats
{
  bool v1; /* the cgroup v1 manager's hierarchies; else cgroup v2 */
  struct cgroup_stats cg;
  struct
  {
    char key[48];
    uint64_t value;
  } memory_stat[RUNTIME_MEMORY_STAT_MAX];
  size_t n_memory_stat;
};
int runtime_stats (const struct runtime_ctx *ctx, const char *id, struct runtime_stats *out, shim_error_t *err);
/* KEY's value in memory.stat, 0 when it has none. */
uint64_t runtime_stats_memory (const struct runtime_stats *st, const char *key);

/* pause, resume: freeze or thaw every process of the container. */
int runtime_pause (const struct runtime_ctx *ctx, const char *id, shim_error_t *err);
int runtime_resume (const struct runtime_ctx *ctx, const char *id, shim_error_t *err);

/* update: the resources in res, or those of resources_file (JSON, "-" for
 * stdin) when it is given. */
int runtime_update (const struct runtime_ctx *ctx, const char *id, struct cgroup_resources *res,
                    const char *resources_file, shim_error_t *err);
/* Free what the caller of runtime_update filled in (the cpuset strings) and
 * what a resources file added. */
void runtime_resources_release (struct cgroup_resources *res);

/* features: the runtime-spec's features document (malloc'd JSON). */
int runtime_features (char **json, shim_error_t *err);

/* spec: a default config.json in bundle (never over an existing one);
 * with rootless, as runc spec --rootless: a user namespace mapping root to
 * the caller, no network namespace, no device rules. */
int runtime_spec (const char *bundle, bool rootless, shim_error_t *err);

#endif
