/* SPDX-License-Identifier: Apache-2.0 */
/* The name an engine gave a container, so that `shim-oom-hook show NAME`
 * finds its verdict.  It is taken at arming (createRuntime or prestart),
 * before the workload has run, from what the engine wrote: an annotation
 * (containerd's CRI, CRI-O, nerdctl), or, for podman, the container's
 * /etc/hosts.  podman 4.3 passes its name in no annotation and no field of
 * config.json (measured: its state lists io.container.manager, the
 * io.podman.annotations.* switches and the stop signal); the one place is
 * the hosts file it writes for the container, whose line for the hostname
 * ends with the name ("127.0.0.1  877386e833a8 my-named-ct").
 *
 * A name only finds a verdict; it never enters one. */
#ifndef SHIM_HOOK_NAME_H
#define SHIM_HOOK_NAME_H

#include "hooks/hook_state.h"

/* The name for the container of state ST: its annotation (hook_state_parse
 * keeps it), else podman's hosts file through the bundle's config.json
 * (history_name_podman, the runtime's too).
 * Best effort: *name is NULL when there is none, and nothing fails arming. */
void hook_name_find (const struct hook_state *st, char **name);

#endif
