#!/bin/sh
# The Debian packages the build and the tests need (`make deps`).
set -eu
pkgs="gcc make pkg-config libc6-dev libyajl-dev libseccomp-dev libcap-dev
      busybox-static bats jq iproute2 util-linux procps
      qemu-system-x86 cpio gzip xz-utils kmod
      runc crun podman conmon golang-github-containers-common"
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
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
