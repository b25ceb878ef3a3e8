/* SPDX-License-Identifier: Apache-2.0 */
/* The version and the commit come from the Makefile (VERSION, the one place
 * the version is written, and `git describe`), given to the files that
 * print them (and only to them: nothing else is rebuilt when they change). */
#ifndef SHIM_VERSION_H
#define SHIM_VERSION_H

#ifndef SHIM_COMMIT
#define SHIM_COMMIT "unknown"
#endif
/* The runtime-spec version shim implements. */
#define SHIM_SPEC_VERSION "1.2.0"

#endif
