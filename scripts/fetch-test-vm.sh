#!/usr/bin/env bash
# What the cgroup v2 test (tests/e2e/cgroup_v2_vm_e2e_test.cc) boots: a Debian kernel in QEMU
# (software emulation: no KVM needed) with a static busybox as its whole userland. This machine has
# cgroup v1, so tiers' v2 path runs there, on a kernel with cgroup v2 alone. Puts the kernel at
# .deps/vm/vmlinuz (its package name in .deps/vm/kernel); skipped when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env

say() { printf '\033[1m[test-vm]\033[0m %s\n' "$*" >&2; }
. scripts/deb-install.sh
deb_install qemu-system-x86 busybox-static cpio

[ -s .deps/vm/vmlinuz ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The kernel package the metapackage names, downloaded; the package lists may be older than the
# archive (which drops a replaced build), so they are updated once when that fails.
fetch() {
  pkg=$(apt-cache depends "$TEST_VM_KERNEL_METAPACKAGE" 2>/dev/null | awk '$1=="Depends:"{print $2; exit}')
  [ -n "$pkg" ] && say "fetching $pkg (the test VM's kernel)" &&
    (cd "$tmp" && apt-get download -qq "$pkg" 2>/dev/null)
}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
fetch || { $SUDO apt-get update -qq && fetch; } ||
  { echo "fetch-test-vm: cannot download the kernel package $TEST_VM_KERNEL_METAPACKAGE names" >&2; exit 1; }
dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
mkdir -p .deps/vm
cp "$tmp"/boot/vmlinuz-* .deps/vm/vmlinuz.part && mv .deps/vm/vmlinuz.part .deps/vm/vmlinuz
echo "$pkg $(dpkg-deb -f "$tmp"/*.deb Version)" > .deps/vm/kernel
