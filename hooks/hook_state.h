/* SPDX-License-Identifier: Apache-2.0 */
/* What a hook is told: the OCI state on stdin, and where the container's
 * cgroup is.  Pure parsers (no I/O), so every quirk of the stacks is a unit
 * test: runc omits `pid` at poststop, crun sends 0 and adds a `root` field,
 * podman's poststop state has no pid and only the annotations it kept. */
#ifndef SHIM_HOOK_STATE_H
#define SHIM_HOOK_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/* The annotation that opts a container in or out: "true" or "false". */
#define HOOK_ANNOTATION "io.github.shim.oom-hook"

enum hook_switch
{
  HOOK_SWITCH_UNSET, /* no annotation: the hook's default (--opt-in) decides */
  HOOK_SWITCH_ON,
  HOOK_SWITCH_OFF,
};

struct hook_state
{
  char *id;
  char *status; /* "creating", "created", "running", "stopped"; NULL if absent */
  int64_t pid;  /* 0 when absent or 0: there is no process any more */
  char *bundle; /* absolute path, or NULL */
  enum hook_switch annotation;
  char *name;  /* the engine's name for it, from an annotation (hook_name.h), or NULL */
  bool podman; /* annotated io.container.manager=libpod */
};

/* The annotations that carry the engine's name for a container:
 * containerd's CRI plugin and nerdctl. */
#define HOOK_NAME_ANNOTATIONS { "io.kubernetes.cri.container-name", "nerdctl/name" }

/* Parse the state.  Unknown fields (crun's `root`) are ignored; a known
 * field of the wrong type, a missing `id`, a negative pid or a relative
 * bundle are errors naming the field. */
int hook_state_parse (const char *json, struct hook_state *out, shim_error_t *err);
void hook_state_release (struct hook_state *s);

/* Container ids become directory names: runc's alphabet (letters, digits,
 * `_ + - .`), not starting with a dot, at most 200 bytes. */
int hook_state_id_check (const char *id, shim_error_t *err);

enum hook_stage
{
  HOOK_STAGE_ARM,      /* createRuntime, prestart: the process exists, nothing ran yet */
  HOOK_STAGE_POSTSTOP, /* the container is gone */
};

/* A stage named on the command line (`createRuntime`, `prestart`,
 * `poststop`; `arm` and `verdict` are the same two), or inferred from the
 * state's status when none is named: creating/created arm, stopped is
 * poststop, running is refused (poststart is too late: crun has already let
 * the workload run, an OOM may predate the baseline). */
int hook_state_stage_parse (const char *name, enum hook_stage *out, shim_error_t *err);
int hook_state_stage_from_status (const char *status, enum hook_stage *out, shim_error_t *err);

/* The cgroup v2 path from the text of /proc/PID/cgroup, as
 * cgroup_parse_proc_cgroup reads it, with the hook's advice when it reads
 * from another cgroup namespace; the root cgroup is refused too (the
 * container has no cgroup of its own).  *path is malloc'd. */
int hook_state_parse_proc_cgroup (const char *buf, char **path, shim_error_t *err);

/* Whether cgroup path `inner` is `outer` or below it. */
bool hook_state_cgroup_within (const char *inner, const char *outer);

#endif
