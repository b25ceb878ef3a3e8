#!/bin/sh
# Build a busybox rootfs for the example bundles from Debian's
# busybox-static: no download.   mkrootfs.sh DIR [EXTRA_BINARY...]
set -eu
dir=$1; shift
busybox=/bin/busybox
[ -x "$busybox" ] || { echo "mkrootfs.sh: $busybox missing: apt-get install busybox-static" >&2; exit 1; }
# A dynamically linked busybox would need the host's libc in the rootfs.
if readelf -l "$busybox" 2>/dev/null | grep -q 'program interpreter'; then
  echo "mkrootfs.sh: $busybox is not static: apt-get install busybox-static" >&2; exit 1
fi
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
cd "$dir.tmp"
mkdir -p bin sbin usr/bin usr/sbin etc proc sys dev tmp root run var/tmp
chmod 1777 tmp var/tmp
cp "$busybox" bin/busybox
for applet in $(bin/busybox --list-full); do
  [ -e "$applet" ] || ln -s /bin/busybox "$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > etc/passwd
printf 'root:x:0:\ntty:x:5:\nnogroup:x:65534:\n' > etc/group
printf 'hosts: files\n' > etc/nsswitch.conf
cd - >/dev/null
for bin in "$@"; do cp "$bin" "$dir.tmp/bin/"; done
rm -rf "$dir"
mv "$dir.tmp" "$dir"
