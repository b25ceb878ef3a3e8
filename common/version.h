/* SPDX-License-Identifier: Apache-2.0 */
/* The one place the version is written (`make VERSION=...` overrides it). */
#ifndef SHIM_VERSION_H
#define SHIM_VERSION_H

#ifndef SHIM_VERSION
#define SHIM_VERSION "0.1.0"
#endif
/* The commit built (`git describe --always --dirty`): the Makefile passes
 * it to the files that print it, and to them only. */
#ifndef SHIM_COMMIT
#define SHIM_COMMIT "unknown"
#endif
/* The runtime-spec version shim implements. */
#define SHIM_SPEC_VERSION "1.2.0"

#endif
