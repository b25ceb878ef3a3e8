#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# tests/vm/matrix_compact.sh OUT_A OUT_B
#
# Two runs of tests/vm/verdict_matrix.sh (one per kernel, e.g. 6.1 and
# 6.12) in one short listing, for an issue's note: per case its line once,
# then per runtime one line of compact JSON without `message` and `hint`
# (pids, rss and peaks kept), marked "(6.1 and 6.12)" when the two kernels'
# verdicts are equal once pids, rss, peaks and kernel-memory figures are
# masked (they differ from run to run), else one line per kernel; then the
# message of `shim run` on the second kernel.  A case or a runtime only one
# run has is printed with its kernel.  Labels are shortened: "shim run" is
# `shim run --json`, "runc + hook show" is `runc run` then
# `shim-oom-hook show --json`.  Runs on the host: jq only.
set -u

die() { echo "matrix_compact: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 OUT_A OUT_B (verdict_matrix.sh's output on two kernels)"
command -v jq >/dev/null || die "jq is needed"
for f in "$@"; do [ -r "$f" ] || die "cannot read $f"; done

# The fields that vary between runs of one case: masked for the comparison
# only.  Kernel memory appears in no field today (only in the message).
MASK='def m: if type == "object" then with_entries(
        if (.key | test("^(pid|anon_rss|file_rss|shmem_rss|memory_peak)$|kernel")) and (.value != null)
        then .value = "#" else .value |= m end)
      elif type == "array" then map(m) else . end;'

declare -A DESC JSON MASKED EXIT MSG
CASES=() LABELS=() KERNELS=()

# read_run FILE: fills the tables for the kernel the file's headers name.
read_run() {
  local file=$1 line name='' k='' label rest ex json
  while IFS= read -r line; do
    case $line in
    '### '*)
      name=${line#'### '}
      name=${name%%:*}
      # "[6.12.117+deb12-amd64]" -> 6.12
      k=$(sed -n 's/.*\[\([0-9]*\.[0-9]*\)[^]]*\] *$/\1/p' <<<"$line")
      [ -n "$k" ] || k=${file##*/}
      [[ " ${KERNELS[*]} " == *" $k "* ]] || KERNELS+=("$k")
      if [ -z "${DESC[$name]:-}" ]; then
        CASES+=("$name")
        # The line without its "  [KERNEL]".
        DESC[$name]=${line%\[*}
        DESC[$name]=${DESC[$name]%"${DESC[$name]##*[! ]}"}
      fi ;;
    *' (exit '*'): '*)
      [ -n "$name" ] || continue
      label=${line%%' (exit '*}
      label=${label/' --json'/}
      label=${label/'shim-oom-hook'/hook}
      rest=${line#*' (exit '}
      ex=${rest%%')'*}
      json=${rest#*'): '}
      [[ " ${LABELS[*]} " == *" $label "* ]] || LABELS+=("$label")
      EXIT[$name|$label|$k]=$ex
      if jq -e 'type == "object"' <<<"$json" >/dev/null 2>&1; then
        JSON[$name|$label|$k]=$(jq -c 'del(.message, .hint)' <<<"$json")
        MASKED[$name|$label|$k]=$(jq -c "$MASK"' del(.message, .hint) | m' <<<"$json")
        [ "$label" != "shim run" ] || MSG[$name|$k]=$(jq -r '.message // empty' <<<"$json")
      else
        # No verdict (an error, or the case's own note): kept as it is.
        JSON[$name|$label|$k]=$json
        MASKED[$name|$label|$k]=$json
      fi ;;
    '  ('*)
      # verdict_matrix.sh's notes ("ID never printed ready"): kept.
      [ -z "$name" ] || MSG[$name|note|$k]="${MSG[$name|note|$k]:-}${line# } " ;;
    esac
  done <"$file"
}

read_run "$1"
read_run "$2"
[ ${#KERNELS[@]} -eq 2 ] || die "the two files name ${#KERNELS[@]} kernel(s) (${KERNELS[*]}): want two"
A=${KERNELS[0]} B=${KERNELS[1]}

for name in "${CASES[@]}"; do
  echo "${DESC[$name]}"
  for label in "${LABELS[@]}"; do
    ka="$name|$label|$A" kb="$name|$label|$B"
    if [ -n "${JSON[$ka]+x}" ] && [ -n "${JSON[$kb]+x}" ] \
      && [ "${EXIT[$ka]}|${MASKED[$ka]}" = "${EXIT[$kb]}|${MASKED[$kb]}" ]; then
      printf '%s (exit %s) (%s and %s): %s\n' "$label" "${EXIT[$kb]}" "$A" "$B" "${JSON[$kb]}"
      continue
    fi
    for k in "$A" "$B"; do
      [ -z "${JSON[$name|$label|$k]+x}" ] \
        || printf '%s (exit %s) (%s): %s\n' "$label" "${EXIT[$name|$label|$k]}" "$k" "${JSON[$name|$label|$k]}"
    done
  done
  for k in "$A" "$B"; do
    [ -z "${MSG[$name|note|$k]:-}" ] || printf 'note (%s): %s\n' "$k" "${MSG[$name|note|$k]% }"
  done
  if [ -n "${MSG[$name|$B]:-}" ]; then
    printf 'message (shim run, %s): %s\n' "$B" "${MSG[$name|$B]}"
  elif [ -n "${MSG[$name|$A]:-}" ]; then
    printf 'message (shim run, %s): %s\n' "$A" "${MSG[$name|$A]}"
  fi
  echo
done
