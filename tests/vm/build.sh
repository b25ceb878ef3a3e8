#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# tests/vm/build.sh [KERNEL_PKG]
#
# Prepares, under tests/vm/.cache/, what tests/vm/run needs to boot a
# throw-away qemu VM on a Debian kernel with a real cgroup v2 hierarchy:
#
#   .cache/<pkg>.deb               the kernel package (apt-get download)
#   .cache/<pkg>/                  the package unpacked (dpkg-deb -x), never
#                                  installed on the host
#   .cache/<pkg>/initramfs.cpio.gz busybox-static + /init + the modules
#                                  needed to mount the host's / over 9p
#   .cache/<pkg>/vmlinux           the kernel uncompressed, for a PVH boot
#   .cache/<pkg>/kernel-version    e.g. 6.1.0-57-amd64
#   .cache/<pkg>/lib/modules/<ver>/modules.dep  (busybox depmod) so that the
#                                  guest can load any module of the package
#                                  (usr/lib/modules/<ver>/ for Debian 13's
#                                  merged-/usr packages)
#   .cache/apt-trixie/             private apt state (sources.list, lists,
#                                  cache) for Debian 13 kernels, see below
#
# KERNEL_PKG defaults to the package linux-image-amd64 depends on (the
# current Debian 12 6.1 kernel). Another one can be named, e.g.
# linux-image-6.12.NN+deb12-amd64 (its modules are .ko.xz: decompressed here),
# or a meta-package such as linux-image-6.12-amd64 (resolved with apt-cache).
# A Debian 13 kernel (a name with "+deb13", e.g.
# linux-image-6.18.15+deb13-amd64 from trixie-backports; or any name that
# the host's bookworm index does not have, even after the host's apt-get
# update) is fetched with a private sources.list naming trixie and
# trixie-backports on the host's Debian mirror, and private lists: the
# host's apt configuration and lists are not touched for it.
#
# Idempotent: every step is skipped when its output already exists and is
# newer than its inputs. The last line printed on stdout is the absolute path
# of .cache/<pkg>/ (tests/vm/run reads it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=$here/.cache
mkdir -p "$cache"

# Serialise concurrent builds (parallel tests/vm/run calls).
exec 9>"$cache/.lock"
flock 9

log() { printf 'vm/build: %s\n' "$*" >&2; }
die() { printf 'vm/build: error: %s\n' "$*" >&2; exit 1; }

# The modules /init insmods, in dependency order for 6.1 (checked against the
# "depends=" field of each .ko on 6.1.0-57); add_module below puts a
# module's dependencies first anyway. A module that is built in or absent on
# a given kernel is left out (6.12: virtio* built in, no fscache module).
MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay"

# --- host packages -----------------------------------------------------------
need_pkgs=()
command -v qemu-system-x86_64 >/dev/null || need_pkgs+=(qemu-system-x86)
# (Not "busybox --list | grep -q": under pipefail, grep -q exiting at the
# first match makes busybox die of SIGPIPE and the test fail at random.)
case $'\n'$(/bin/busybox --list 2>/dev/null || true)$'\n' in
*$'\n'switch_root$'\n'*) ;;
*) need_pkgs+=(busybox-static) ;;
esac
command -v cpio >/dev/null || need_pkgs+=(cpio)
command -v xz >/dev/null || need_pkgs+=(xz-utils)
command -v zstd >/dev/null || need_pkgs+=(zstd)
if [ ${#need_pkgs[@]} -gt 0 ]; then
	log "installing ${need_pkgs[*]}"
	[ "$(id -u)" = 0 ] || die "need root to apt-get install ${need_pkgs[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >&2 || {
		apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >&2
	}
fi
# The package busybox (dynamic) also installs /bin/busybox: the initramfs
# needs the static one.
case $(LC_ALL=C ldd /bin/busybox 2>&1 || true) in
*'not a dynamic executable'*) ;;
*) die "/bin/busybox is dynamically linked: apt-get install busybox-static" ;;
esac

# --- kernel package ----------------------------------------------------------
# The kernel package a meta-package (linux-image-amd64, linux-image-6.12-amd64)
# depends on.
resolve_meta() {
	apt-cache depends "$1" 2>/dev/null \
		| sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1
}
pkg=${1:-linux-image-amd64}
if [[ $pkg =~ ^linux-image-(amd64|[0-9]+\.[0-9]+-amd64)$ ]]; then
	meta=$pkg
	pkg=$(resolve_meta "$meta")
	if [ -z "$pkg" ]; then
		log "apt-cache knows no $meta: running apt-get update"
		apt-get update -q >&2
		pkg=$(resolve_meta "$meta")
	fi
	[ -n "$pkg" ] || die "cannot find the kernel package $meta depends on"
fi
case $pkg in
linux-image-*) ;;
*) die "not a kernel package name: $pkg" ;;
esac

dir=$cache/$pkg
# first_match GLOB...: the first existing path of the expanded glob, or "".
first_match() {
	[ -e "$1" ] && printf '%s\n' "$1"
	return 0
}

# Debian 13 (trixie) kernels: a private apt state under .cache/apt-trixie/
# (sources.list, lists/, cache/, apt.conf), passed on each apt-get/apt-cache
# command line, so that the host's /etc/apt and /var/lib/apt/lists stay as
# they are. The suites trixie and trixie-backports (main), on the mirror the
# host's own debian.sources names, signed by debian-archive-keyring (bookworm's
# package already holds trixie's keys).
tapt=$cache/apt-trixie
# The host's Debian mirror: the first URI of the deb822 stanza of
# /etc/apt/sources.list.d/debian.sources whose suites include a release
# codename (bookworm, not bookworm-security), else of a one-line
# "deb URI bookworm ..." of /etc/apt/sources.list.
debian_mirror() {
	local f=/etc/apt/sources.list.d/debian.sources uri=
	[ -r "$f" ] && uri=$(awk '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "" \
				&& suites ~ /(^| )[a-z]+( |$)/ && !found) {
				split(uris, u, " "); print u[1]; found = 1
			}
			types = uris = suites = enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{
			k = tolower($1); $1 = ""; sub(/^ +/, "")
			if (k == "types:") types = $0
			else if (k == "uris:") uris = $0
			else if (k == "suites:") suites = $0
			else if (k == "enabled:") enabled = tolower($0)
		}
		END { flush() }' "$f")
	if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
		uri=$(sed -n 's/^deb[ \t]\+\(\[[^]]*\][ \t]\+\)\?\([a-z]\+:[^ \t]*\)[ \t]\+[a-z]\+[ \t].*/\2/p' \
			/etc/apt/sources.list | head -n1)
	fi
	printf '%s\n' "${uri%/}"
}
tapt_opts=(
	-c "$tapt/apt.conf"
	-o "Dir::Etc::sourcelist=$tapt/sources.list"
	-o Dir::Etc::sourceparts=/nonexistent
	-o "Dir::State::Lists=$tapt/lists"
	-o "Dir::Cache=$tapt/cache"
	-o Acquire::Languages=none
)
# tapt_setup: write the private sources.list and apt.conf; a change of the
# mirror drops the private lists.
tapt_setup() {
	local uri key=/usr/share/keyrings/debian-archive-keyring.gpg
	uri=$(debian_mirror)
	[ -n "$uri" ] || die "no Debian mirror URI in /etc/apt/sources.list.d/debian.sources"
	[ -r "$key" ] || die "no $key: apt-get install debian-archive-keyring"
	mkdir -p "$tapt/lists/partial" "$tapt/cache/archives/partial"
	printf 'deb [signed-by=%s] %s %s main\n' \
		"$key" "$uri" trixie "$key" "$uri" trixie-backports >"$tapt/sources.list.new"
	if cmp -s "$tapt/sources.list.new" "$tapt/sources.list"; then
		rm -f "$tapt/sources.list.new"
	else
		mv "$tapt/sources.list.new" "$tapt/sources.list"
		rm -rf "$tapt/lists"
		mkdir -p "$tapt/lists/partial"
	fi
	# The host's apt.conf.d hooks (appstream, PackageKit) are for its own
	# lists: none runs after the private update.
	cat >"$tapt/apt.conf" <<-'EOF'
	#clear APT::Update::Pre-Invoke;
	#clear APT::Update::Post-Invoke;
	#clear APT::Update::Post-Invoke-Success;
	EOF
}
tapt_update() {
	log "apt-get update of the private trixie lists ($tapt)"
	apt-get "${tapt_opts[@]}" update -q >&2 \
		|| die "apt-get update of trixie failed (sources: $tapt/sources.list)"
}
# tapt_download PKG: into $cache, updating the private lists when they are
# missing or do not know PKG.
tapt_download() {
	tapt_setup
	if ! compgen -G "$tapt/lists/*_Packages*" >/dev/null; then
		tapt_update
	fi
	(cd "$cache" && apt-get "${tapt_opts[@]}" download -q "$1" >&2) || {
		tapt_update
		(cd "$cache" && apt-get "${tapt_opts[@]}" download -q "$1" >&2)
	}
}

deb=$(first_match "$cache/${pkg}"_*.deb)
if [ -z "$deb" ]; then
	case $pkg in
	*+deb13*)
		log "downloading $pkg (Debian 13: private trixie lists)"
		tapt_download "$pkg" || die "$pkg is in neither trixie nor trixie-backports"
		;;
	*)
		log "downloading $pkg"
		# apt-get download writes into the current directory. As root it warns
		# that the _apt user cannot write there: harmless.
		(cd "$cache" && apt-get download -q "$pkg" >&2) || {
			apt-get update -q >&2
			(cd "$cache" && apt-get download -q "$pkg" >&2)
		} || {
			log "$pkg is not in the host's (bookworm) index: trying trixie"
			tapt_download "$pkg" || die "no package $pkg in bookworm, trixie or trixie-backports"
		}
		;;
	esac
	deb=$(first_match "$cache/${pkg}"_*.deb)
	[ -n "$deb" ] || die "apt-get download $pkg left no .deb in $cache"
fi

if [ ! -e "$dir/.unpacked" ] || [ "$deb" -nt "$dir/.unpacked" ]; then
	log "unpacking $(basename "$deb")"
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$deb" "$dir"
	touch "$dir/.unpacked"
fi

# Debian 12's packages put the modules under lib/modules/<ver>, Debian 13's
# (merged /usr) under usr/lib/modules/<ver>; the kernel is in boot/ on both.
moddir=$(first_match "$dir"/lib/modules/*)
[ -n "$moddir" ] || moddir=$(first_match "$dir"/usr/lib/modules/*)
kver=${moddir##*/}
if [ -z "$kver" ] || [ ! -f "$dir/boot/vmlinuz-$kver" ]; then
	die "no kernel in $dir"
fi
echo "$kver" >"$dir/kernel-version"
# busybox depmod -b BASE works on BASE/lib/modules/<ver>: BASE is $dir or
# $dir/usr.
modbase=${moddir%/lib/modules/*}

# The uncompressed vmlinux, booted through its PVH entry point (CONFIG_PVH=y
# on Debian): measured, this saves 3 of the 7 s a boot takes, which TCG
# spends decompressing the bzImage (xz on 6.1, zstd on 6.12 and 6.18).
# tests/vm/run falls back to the bzImage when there is no vmlinux.
# Like the kernel's scripts/extract-vmlinux: try each compressed-stream magic
# in the bzImage until one decompresses to an ELF file.
extract_vmlinux() {
	local img=$1 out=$2 magic cmd pat off
	for magic in xz zstd gzip; do
		case $magic in
		xz) cmd='xz -dc --single-stream'; pat='\xfd7zXZ\x00' ;;
		zstd) cmd='zstd -qdc'; pat='\x28\xb5\x2f\xfd' ;;
		gzip) cmd='gzip -dc'; pat='\x1f\x8b\x08' ;;
		esac
		command -v "${cmd%% *}" >/dev/null || continue
		for off in $(LC_ALL=C grep -abo -P "$pat" "$img" | cut -d: -f1 | head -n 5); do
			tail -c +$((off + 1)) "$img" | $cmd >"$out.tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}
vmlinux=$dir/vmlinux
if [ ! -e "$vmlinux" ] && [ ! -e "$dir/.no-vmlinux" ]; then
	if grep -qx 'CONFIG_PVH=y' "$dir/boot/config-$kver" 2>/dev/null \
		&& extract_vmlinux "$dir/boot/vmlinuz-$kver" "$vmlinux"; then
		log "extracted vmlinux (PVH boot)"
	else
		log "no vmlinux extracted: booting the bzImage (3 s slower)"
		: >"$dir/.no-vmlinux"
	fi
fi

# modules.dep for the whole module tree, so that the guest can modprobe
# (busybox modprobe, set as the kernel's modprobe helper) anything else it
# needs, e.g. veth. The .deb ships no modules.dep: depmod normally runs at
# install time. busybox depmod reads .ko.xz too (6.12: 11 s, once).
if [ ! -e "$moddir/modules.dep" ]; then
	log "depmod $kver"
	/bin/busybox depmod -b "$modbase" "$kver" || log "depmod failed (ignored)"
fi

# --- initramfs ----------------------------------------------------------------
initrd=$dir/initramfs.cpio.gz
init_src=$here/init
if [ -e "$initrd" ] && [ "$initrd" -nt "$init_src" ] && [ "$initrd" -nt "$here/build.sh" ] \
	&& [ "$initrd" -nt /bin/busybox ] && [ "$initrd" -nt "$dir/.unpacked" ]; then
	echo "$dir"
	exit 0
fi

log "building initramfs for $kver"
stage=$(mktemp -d "$cache/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,lower,rw,newroot,modules,results}
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
install -m 0755 "$init_src" "$stage/init"
: >"$stage/modules/order"
# add_module NAME: copy NAME.ko (decompressed) into the initramfs after the
# modules it depends on (its modinfo "depends=" field, read recursively).
# The order of $MODULES is right for 6.1 but not for 6.12, where 9pnet
# depends on netfs.
add_module() {
	local m=$1 pat f dep
	grep -qx "$m" "$stage/modules/order" && return 0
	[ -e "$stage/modules/$m.skip" ] && return 0
	# Module file names use '_' or '-' interchangeably with the module name.
	pat=$(printf '%s' "$m" | sed 's/[_-]/[_-]/g')
	f=$(find "$moddir/kernel" -regextype posix-extended \
		-regex ".*/${pat}\.ko(\.xz|\.zst|\.gz)?" -print -quit)
	if [ -z "$f" ]; then
		if grep -Eq "/${pat}\.ko$" "$moddir/modules.builtin" 2>/dev/null; then
			log "module $m: built in"
		else
			log "module $m: absent (skipped)"
		fi
		: >"$stage/modules/$m.skip"
		return 0
	fi
	case $f in
	*.ko.xz) xz -dc "$f" >"$stage/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$f" >"$stage/modules/$m.ko" ;;
	*.ko.gz) gzip -dc "$f" >"$stage/modules/$m.ko" ;;
	*) cp "$f" "$stage/modules/$m.ko" ;;
	esac
	for dep in $(tr '\0' '\n' <"$stage/modules/$m.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add_module "$dep"
	done
	echo "$m" >>"$stage/modules/order"
}
for m in $MODULES; do
	add_module "$m"
done
rm -f "$stage"/modules/*.skip
echo "$kver" >"$stage/kernel-version"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) \
	| gzip -6 >"$initrd.tmp"
mv "$initrd.tmp" "$initrd"
log "initramfs: $(du -h "$initrd" | cut -f1) ($(wc -l <"$stage/modules/order") modules)"
echo "$dir"
