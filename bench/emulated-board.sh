#!/usr/bin/env bash
# BENCHMARKS.md "Devices": this machine beside an emulated aarch64 board, measured side by side in
# one run — the llama.cpp worker cross-built for aarch64 (scripts/build-worker.sh aarch64) running
# under qemu-aarch64 on an ssh "board" in a network namespace this script creates (root needed;
# removed at the end) — on the bundled model: the quality agreement (ppl on the same chunks) and
# the emulator's speed, labelled emulated. Usage: bench/emulated-board.sh [threads...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench/emulated-board.sh: needs root (network namespaces)" >&2; exit 2; }
scripts/build-worker.sh aarch64 >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/pipette-bench-board.XXXXXX")
ns="pipette-bench$$"; hif="pbh$$"; bif="pbb$$"
cleanup() {
  for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
  ip netns del "$ns" 2>/dev/null || true
  ip link del "$hif" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns"
ip link add "$hif" type veth peer name "$bif"
ip link set "$bif" netns "$ns"
ip addr add 10.213.0.1/30 dev "$hif" && ip link set "$hif" up
ip netns exec "$ns" sh -c "ip addr add 10.213.0.2/30 dev $bif && ip link set $bif up && ip link set lo up"
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/client_key"
mkdir -p /run/sshd "$work/home"
cat > "$work/sshd_config" <<CONF
Port 22
ListenAddress 10.213.0.2
HostKey $work/host_key
AuthorizedKeysFile $work/client_key.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $work/sshd.pid
ClientAliveInterval 2
ClientAliveCountMax 3
CONF
ip netns exec "$ns" /usr/sbin/sshd -f "$work/sshd_config" -E "$work/sshd.log"
for _ in $(seq 100); do [ -f "$work/sshd.pid" ] && break; sleep 0.1; done
threads="${*:-1 2}"
cat > "$work/emulated-board.yaml" <<YAML
name: emulated-board
models: [smollm2-135m-instruct-q4_1]
devices:
  - local
  - name: arm
    ssh:
      host: 10.213.0.2
      user: root
      key: $work/client_key
      workdir: $work/home
      arch: aarch64
      emulator: [qemu-aarch64]
      ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, LogLevel=ERROR]
params: {threads: [${threads// /, }]}
tests: [pp64, tg16]
quality:
  ppl: {chunks: 8, n_ctx: 128}
repetitions: 3
YAML
build/pipette run "$work/emulated-board.yaml" --store "$work/bench.db" --no-bandwidth
echo
build/pipette report --store "$work/bench.db" --vary device
