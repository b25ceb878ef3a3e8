/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime spec's hooks: each one a fork and execve of hooks.<stage>[i]
 * with its args and env, the container's state JSON on stdin, bounded by
 * its timeout.  Who calls which stage, and in which namespace:
 *
 *   prestart, createRuntime  the runtime (create/run), init's namespaces
 *                            made, its mounts done, before pivot_root
 *   createContainer          init itself, in the container's namespaces,
 *                            before pivot_root
 *   startContainer           init, after `start`, right before the exec
 *   poststart                the runtime (start/run), after the exec
 *   poststop                 the runtime (delete/run), after the cgroup and
 *                            the process are gone, with the verdict */
#ifndef SHIM_HOOKS_H
#define SHIM_HOOKS_H

#include "runtime/config.h"
#include "common/error.h"

/* Run a stage's hooks in order; the first failure stops the stage and is
 * the error, after runc's words: `error running hook #1: hooks.prestart[1]
 * "/usr/bin/x": exited with status 2: <its output>`.  Its stdout and
 * stderr are captured for that message. */
int oci_hooks_run (const struct shim_config *cfg, enum shim_hook_stage stage, const char *state_json,
               shim_error_t *err);

/* poststart and poststop: a failure is a warning (the same words) and the
 * rest still run, as the spec says.  Returns the number that failed. */
int oci_hooks_run_all (const struct shim_config *cfg, enum shim_hook_stage stage, const char *state_json);

#endif
