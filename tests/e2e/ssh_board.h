// A test "board": a real sshd (Debian's openssh-server) in a network namespace the test creates,
// reached from this machine over a veth pair at an address of its own — a separate host on the
// network, listening nowhere beyond this machine. It shares this machine's files (a namespace
// isolates the network, not the disk), so what a test stages goes to a work folder of its own.
// Everything is torn down in the destructor: the processes in the namespace, the namespace, the
// link, the keys.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "pipette/device/ssh_device.h"
#include "pipette/util/command.h"
#include "pipette/util/temp_dir.h"

namespace pipette_e2e {

class SshBoard {
 public:
  static constexpr const char* kHostname = "pipette-board";

  SshBoard() : dir_("pipette-board") {
    // Boards a crashed or killed test left behind (e2e tests run one at a time).
    std::system(
        "for n in $(ip netns list 2>/dev/null | awk '/^pipette-b[0-9]+( |$)/ {print $1}'); do "
        "for p in $(ip netns pids $n); do kill -9 $p; done; ip netns del $n; done; "
        "for l in $(ip -o link show 2>/dev/null | awk -F': ' '/ pvh[0-9]+[@:]/ {print $2}' | "
        "cut -d@ -f1); do ip link del $l; done; true");
    // Names and addresses of this process's own: tests may run side by side.
    const int id = static_cast<int>(getpid()) % 60000;
    ns_ = "pipette-b" + std::to_string(id);
    host_if_ = "pvh" + std::to_string(id);
    board_if_ = "pvb" + std::to_string(id);
    const std::string net =
        "10." + std::to_string(100 + id / 16384) + "." + std::to_string((id / 64) % 256) + ".";
    const int base = (id % 64) * 4;
    host_addr_ = net + std::to_string(base + 1);
    address_ = net + std::to_string(base + 2);
    Sh("ip netns add " + ns_);
    Sh("ip link add " + host_if_ + " type veth peer name " + board_if_);
    Sh("ip link set " + board_if_ + " netns " + ns_);
    Sh("ip addr add " + host_addr_ + "/30 dev " + host_if_ + " && ip link set " + host_if_ + " up");
    Sh("ip netns exec " + ns_ + " sh -c 'ip addr add " + address_ + "/30 dev " + board_if_ +
       " && ip link set " + board_if_ + " up && ip link set lo up'");
    const std::string d = dir_.path().string();
    Sh("ssh-keygen -q -t ed25519 -N '' -f " + d +
       "/host_key && ssh-keygen -q -t ed25519 -N '' -f " + d +
       "/client_key && mkdir -p /run/sshd " + d + "/home");
    std::ofstream(dir_.path() / "sshd_config")
        << "Port 22\nListenAddress " << address_ << "\nHostKey " << d << "/host_key\n"
        << "AuthorizedKeysFile " << d << "/client_key.pub\nPermitRootLogin prohibit-password\n"
        << "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        << "StrictModes no\nPidFile " << d
        << "/sshd.pid\n"
        // The board notices a dropped link within about 3 s, and ends the session.
        << "ClientAliveInterval 1\nClientAliveCountMax 2\n";
    // A host name of its own (a UTS namespace), so that what is read on the board cannot be
    // mistaken for this machine's. `ip netns exec` mounts a fresh /sys: the cgroup v1
    // hierarchies a board has (cpu, cpuset, memory: what tiers use) are mounted in it again, where
    // this machine has them.
    Sh("ip netns exec " + ns_ + " unshare --uts sh -c 'echo " + std::string(kHostname) +
       " > /proc/sys/kernel/hostname && { mount -t tmpfs cgroup_root /sys/fs/cgroup && for c in "
       "cpu cpuset memory; do mkdir -p /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup "
       "/sys/fs/cgroup/$c; done; } 2>/dev/null; exec /usr/sbin/sshd -f " +
       d + "/sshd_config -E " + d + "/sshd.log'");
    // sshd writes its pid file once it listens.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(dir_.path() / "sshd.pid") &&
           std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ready_ = std::filesystem::exists(dir_.path() / "sshd.pid");
  }

  ~SshBoard() {
    // Whatever runs in the namespace (sshd, sessions, workers), then the namespace and the link.
    std::system(("for p in $(ip netns pids " + ns_ + " 2>/dev/null); do kill -9 $p; done").c_str());
    std::system(
        ("ip netns del " + ns_ + " 2>/dev/null; ip link del " + host_if_ + " 2>/dev/null; true")
            .c_str());
  }

  // Whether this machine can host a board: root (namespaces) and sshd installed.
  static std::string Missing() {
    if (geteuid() != 0) return "network namespaces need root";
    if (!std::filesystem::exists("/usr/sbin/sshd")) {
      return "no /usr/sbin/sshd: run scripts/setup.sh (it installs openssh-server)";
    }
    return "";
  }

  pipette::device::SshTarget Target() const {
    pipette::device::SshTarget t;
    t.name = "board";
    t.host = address_;
    t.user = "root";
    t.key_file = (dir_.path() / "client_key").string();
    t.workdir = (dir_.path() / "home" / "pipette").string();
    t.ssh_options = {"StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null", "LogLevel=ERROR"};
    t.alive_interval_s = 1;
    t.alive_count_max = 2;
    return t;
  }

  // Processes on the board whose name starts with `prefix` (their pids).
  std::vector<int> Processes(const std::string& prefix) const {
    std::vector<int> out;
    pipette::ProcessCommandRunner run;
    auto r = run.Run({.argv = {"ip", "netns", "pids", ns_}, .timeout_s = 10});
    if (!r) return out;
    std::istringstream in(r->out);
    for (int pid; in >> pid;) {
      std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
      std::string name;
      std::getline(comm, name);
      if (name.rfind(prefix, 0) == 0) out.push_back(pid);
    }
    return out;
  }

  // Waits up to `within` for no process named `prefix...` on the board.
  bool NoneLeft(const std::string& prefix, std::chrono::seconds within) const {
    const auto end = std::chrono::steady_clock::now() + within;
    while (!Processes(prefix).empty()) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  }

  // The link goes down (packets stop; nothing is closed) or comes back.
  void SetLink(bool up) { Sh("ip link set " + host_if_ + (up ? " up" : " down")); }

  const std::filesystem::path& dir() const { return dir_.path(); }
  // Whether every step of the set-up worked and sshd listens.
  bool ready() const { return ok_ && ready_; }

 private:
  void Sh(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
      ADD_FAILURE() << cmd << " exited with " << rc;
      ok_ = false;
    }
  }

  pipette::TempDir dir_;
  bool ok_ = true;
  bool ready_ = false;
  std::string ns_, host_if_, board_if_, host_addr_, address_;
};

}  // namespace pipette_e2e
