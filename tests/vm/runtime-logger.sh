#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/vm/runtime-logger.sh ARGS...: a stand-in OCI runtime that records how
# an engine calls it, then execs the real one with the same argv.
#
# One line per call is appended to $RUNTIME_LOGGER_FILE (default
# /tmp/runtime-argv.log): the caller's command name, then every argument
# quoted as the shell would, then (after a tab and #) its cwd, where its
# stdin, stdout and stderr point, and the names of its environment.  The real
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
# What the call inherits: cwd, stdin/stdout/stderr, and the names of its
# environment variables, after a tab (RUNTIME_LOGGER_CONTEXT=0: argv only).
if [ "${RUNTIME_LOGGER_CONTEXT:-1}" = 1 ]; then
	ctx="cwd=$(pwd)"
	for fd in 0 1 2; do
		t=$(readlink "/proc/$$/fd/$fd" 2>/dev/null || echo closed)
		ctx="$ctx fd$fd=$t"
	done
	ctx="$ctx env=$(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | grep -v -e '^RUNTIME_LOGGER_' -e '^_$' -e '^SHLVL$' -e '^OLDPWD$' -e '^PWD$' | sort | paste -sd, -)"
	line="$line	# $ctx"
fi
# One write per line: concurrent calls do not interleave within a line.
printf '%s\n' "$line" >>"$log"
exec "$real" "$@"
