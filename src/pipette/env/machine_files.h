// The files a machine's facts are read from (/proc, /sys, /etc/os-release), behind an interface:
// this machine's own (LocalFiles), or a snapshot another machine printed (SnapshotFiles: a
// remote device runs SnapshotScript() over ssh or adb and sends its output back), so that one
// reader gives the fingerprint and the conditions of either (ninja's DiskInterface in spirit).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/env/fingerprint.h"

namespace pipette::env {

class FileSource {
 public:
  virtual ~FileSource() = default;
  // The file's contents; nullopt when it cannot be read.
  virtual std::optional<std::string> Read(const std::string& path) const = 0;
  // The names of a directory's entries, sorted; empty when it cannot be listed.
  virtual std::vector<std::string> List(const std::string& dir) const = 0;
};

class LocalFiles : public FileSource {
 public:
  std::optional<std::string> Read(const std::string& path) const override;
  std::vector<std::string> List(const std::string& dir) const override;
};

// Paths to contents, as a snapshot holds them; a directory lists the names under it.
class SnapshotFiles : public FileSource {
 public:
  explicit SnapshotFiles(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  std::optional<std::string> Read(const std::string& path) const override;
  std::vector<std::string> List(const std::string& dir) const override;

 private:
  std::map<std::string, std::string> files_;
};

// A POSIX sh script that prints every file the readers below use (each after a line
// "==> PATH <==") and, as pseudo-files, `uname -m` ("@uname-m") and the online CPUs
// ("@nproc"). Runs with any POSIX shell, Android's toybox sh included.
std::string SnapshotScript();
// The script's output back into paths and contents.
std::map<std::string, std::string> ParseSnapshot(std::string_view text);

// What the files do not say: from uname(2) and sched_getaffinity(2) on this machine, from the
// snapshot's pseudo-files and /proc/sys/kernel on another. Unknown ones stay empty.
struct HostFacts {
  std::optional<std::string> kernel, arch, hostname;
  std::optional<int> online;     // online logical CPUs
  std::optional<int> available;  // CPUs the measuring process may run on
};
// A snapshot's host facts.
HostFacts HostFactsFrom(const FileSource& files);

// CollectFingerprint's keys that the files give (no compiler, no memory bandwidth probe).
nlohmann::json FingerprintFromFiles(const FileSource& files, const HostFacts& host);
Conditions ConditionsFromFiles(const FileSource& files);
CacheSizes CacheSizesFrom(const FileSource& files);

}  // namespace pipette::env
