#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/vm/runtime-logger.sh ARGS...: a stand-in OCI runtime that records how
# an engine calls it, then execs the real one with the same argv.
#
# One line per call is appended to $RUNTIME_LOGGER_FILE (default
# /tmp/runtime-argv.log): the caller's command name, then every argument
# quoted as the shell would ("%s" of printf %q-like words).  The real
# runtime is $RUNTIME_LOGGER_EXEC (default /usr/sbin/runc).
#
# Engines do not all pass their environment down to the runtime (conmon,
# containerd-shim), so the defaults are what an engine run uses: point
# the engine's runtime path at this script and read the file afterwards.
log=${RUNTIME_LOGGER_FILE:-/tmp/runtime-argv.log}
real=${RUNTIME_LOGGER_EXEC:-/usr/sbin/runc}
parent=$(cat "/proc/$PPID/comm" 2>/dev/null || echo '?')
line="[$parent]"
for a in "$@"; do
	case $a in
	*[!A-Za-z0-9_./:=,@+-]* | '') line="$line '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'" ;;
	*) line="$line $a" ;;
	esac
done
# One write per line: concurrent calls do not interleave within a line.
printf '%s\n' "$line" >>"$log"
exec "$real" "$@"
