# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by the terminal tests, after `load helpers` and `load
# lifecycle_helpers`: tests/helpers/recvtty, a --console-socket listener
# that copies the pty master it is given to a file until EOF.

RECVTTY=$REPO/tests/helpers/recvtty

# need_recvtty: fails the test when the helper is not built.
need_recvtty() {
	BG_PIDS=()
	if [ ! -x "$RECVTTY" ]; then
		echo "build first: make (needs $RECVTTY)" >&2
		return 1
	fi
}

# recvtty_bg NAME [INPUT]: recvtty listening on $T/NAME.sock, its output
# in $T/NAME.out; waits until the socket is there.  $RECV_PID.
recvtty_bg() {
	"$RECVTTY" "$T/$1.sock" ${2+"$2"} </dev/null >"$T/$1.out" 2>"$T/$1.err" 3>&- &
	RECV_PID=$!
	BG_PIDS+=("$RECV_PID")
	timeout "$WAIT_SECS" sh -c 'until [ -S "$1" ]; do sleep 0.02; done' _ "$T/$1.sock"
}

# recvtty_wait NAME: until recvtty saw EOF and exited (bounded); its exit
# status must be 0.  $tty_out: its output, \r dropped.
recvtty_wait() {
	local i rc=0
	for ((i = 0; i < WAIT_SECS * 20; i++)); do
		kill -0 "$RECV_PID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$RECV_PID" 2>/dev/null; then
		echo "recvtty saw no EOF; so far: $(cat "$T/$1.out")" >&2
		return 1
	fi
	wait "$RECV_PID" || rc=$?
	assert_eq "$rc" 0 "recvtty's exit status ($(cat "$T/$1.err"))"
	tty_out=$(tr -d '\r' <"$T/$1.out")
}
