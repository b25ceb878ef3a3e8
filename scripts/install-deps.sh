#!/bin/sh
# The Debian packages shim needs: `make deps` (to build and run it) and
# `make test-deps` (--test: and to run its tests, VM and engines included).
set -eu
pkgs="gcc make pkg-config libc6-dev libyajl-dev libseccomp-dev libcap-dev libsystemd-dev
      busybox-static scdoc protobuf-c-compiler libprotobuf-c-dev"
if [ "${1:-}" = --test ]; then
  pkgs="$pkgs bats jq iproute2 util-linux procps man-db bash-completion graphviz gnuplot-nox
      qemu-system-x86 cpio gzip xz-utils zstd kmod
      runc crun podman conmon golang-github-containers-common containerd docker.io
      python3-grpcio python3-protobuf protobuf-compiler
      uidmap dbus-user-session
      clang libclang-rt-14-dev valgrind"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# containerd and docker.io are only run by the tests, inside the VM: their
# maintainer scripts must not start the daemons on this host.  Where no
# policy-rc.d says otherwise, one that denies every start is in place for
# the install only.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# install-deps.sh: no service starts (removed after the install)\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod 0755 "$policy"
  trap '$SUDO rm -f "$policy"' EXIT
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
