#!/usr/bin/env bash
# What the cgroup v2 test (tests/e2e/cgroup_v2_vm_e2e_test.cc) boots: a Debian kernel in QEMU
# (software emulation: no KVM needed) with a static busybox as its whole userland. This machine has
# cgroup v1, so the tiers' v2 path runs there, on a kernel with cgroup v2. Installs QEMU and cpio;
# downloads the kernel and busybox packages pinned in scripts/versions.env (not installed: Debian's
# busybox-static would replace a busybox already installed) and unpacks .deps/vm/vmlinuz and
# .deps/vm/busybox, each skipped when the pinned one is there already.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env

say() { printf '\033[1m[test-vm]\033[0m %s\n' "$*" >&2; }
. scripts/deb-install.sh
deb_install qemu-system-x86 cpio

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
mkdir -p .deps/vm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# download PACKAGE=VERSION [FALLBACK]: the .deb into $tmp/PACKAGE/; the package lists may be older
# than the archive, so they are updated once when it fails. When the pinned build has left the
# archive (a security update or a point release replaced it), FALLBACK names what to take instead:
# a metapackage (its first dependency), else the package itself at the archive's version.
download() {
  local want=$1 fallback=${2:-${1%%=*}} dir="$tmp/${1%%=*}" now=""
  mkdir -p "$dir"
  (cd "$dir" && apt-get download -qq "$want" 2>/dev/null) && return 0
  $SUDO apt-get update -qq || true
  (cd "$dir" && apt-get download -qq "$want" 2>/dev/null) && return 0
  if [ "$fallback" = "${1%%=*}" ]; then
    now=$fallback
  else
    now=$(apt-cache depends "$fallback" 2>/dev/null | awk '$1=="Depends:" && !n {print $2; n=1}' || true)
  fi
  [ -n "$now" ] || { echo "fetch-test-vm: cannot download $want, nor find what $fallback names" >&2; return 1; }
  say "WARNING: $want is no longer in Debian's archive; taking $now." \
    "Update the TEST_VM_* pins in scripts/versions.env."
  (cd "$dir" && apt-get download -qq "$now")
}

kernel_pin="$TEST_VM_KERNEL_PACKAGE $TEST_VM_KERNEL_VERSION"
if [ ! -s .deps/vm/vmlinuz ] || [ "$(cat .deps/vm/kernel 2>/dev/null)" != "$kernel_pin" ]; then
  say "fetching $TEST_VM_KERNEL_PACKAGE=$TEST_VM_KERNEL_VERSION (the test VM's kernel)"
  download "$TEST_VM_KERNEL_PACKAGE=$TEST_VM_KERNEL_VERSION" linux-image-amd64
  deb=$(ls "$tmp/$TEST_VM_KERNEL_PACKAGE"/*.deb)
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
  got="$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
  sum=$(sha256sum "$tmp"/boot/vmlinuz-* | cut -d' ' -f1)
  if [ "$got" = "$kernel_pin" ] && [ "$sum" != "$TEST_VM_VMLINUZ_SHA256" ]; then
    echo "fetch-test-vm: SHA-256 mismatch for the vmlinuz of $got: expected" \
      "$TEST_VM_VMLINUZ_SHA256, got $sum" >&2
    exit 1
  fi
  [ "$got" = "$kernel_pin" ] || say "WARNING: booting $got (vmlinuz SHA-256 $sum), not the pinned $kernel_pin"
  cp "$tmp"/boot/vmlinuz-* .deps/vm/vmlinuz.part && mv .deps/vm/vmlinuz.part .deps/vm/vmlinuz
  echo "$got" > .deps/vm/kernel
fi

if [ ! -x .deps/vm/busybox ] || [ "$(cat .deps/vm/busybox.version 2>/dev/null)" != "$TEST_VM_BUSYBOX_VERSION" ]; then
  say "fetching busybox-static=$TEST_VM_BUSYBOX_VERSION (the test VM's userland)"
  download "busybox-static=$TEST_VM_BUSYBOX_VERSION"
  dpkg-deb --fsys-tarfile "$tmp"/busybox-static/*.deb | tar -x -C "$tmp" ./bin/busybox
  cp "$tmp/bin/busybox" .deps/vm/busybox.part && mv .deps/vm/busybox.part .deps/vm/busybox
  echo "$TEST_VM_BUSYBOX_VERSION" > .deps/vm/busybox.version
fi
