// The files a command writes (a report's -o, a run's exports), checked before anything is
// measured or written: an output never overwrites what the command reads (the store, the
// experiment, a model, a dataset, a compared side) nor another output, and it can be written
// where it is. And the temporary files an interrupted writer leaves behind, removed by the next.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipette/util/result.h"

namespace pipette {

// A file a command names, and what it is to the command ("the store", "--export-json").
struct NamedPath {
  std::string role;
  std::string path;
};

// Whether `a` and `b` are one file: by identity where both exist (another spelling, a symbolic
// link, a hard link), else by their absolute paths with every existing symbolic link resolved.
bool SameFile(const std::string& a, const std::string& b);

// A store's file and the files SQLite keeps beside it (-wal, -shm, -journal), named `role`.
std::vector<NamedPath> StoreFiles(const std::string& role, const std::string& store);

// Refuses (exit code 2, writing nothing) an output that is the same file as an input or as
// another output, an output that is a directory, and one that cannot be made where it is (its
// nearest existing folder is not a folder, or is not writable). The message names the option,
// the path and the problem.
Status CheckOutputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

// Whether a process with that pid still runs (env::ProcessTable::Exists): the files a gone
// process left half-written are removed.
using PidAlive = std::function<bool(int pid)>;

// The pid in the name of a temporary file WriteFileAtomically made for `target` ("NAME.tmpPID",
// or "NAME.tmpPID.HOST" from `host`), or nullopt when `name` is not one of them (or was made on
// another host).
std::optional<int> TempFilePid(const std::string& name, const std::string& target_name,
                               const std::string& host);

// Removes the files in `dir` for which `pid_of` reads a pid from the name and whose process is
// gone (`alive` false); never the files of this process. Returns the paths removed.
std::vector<std::string> RemoveLeftovers(
    const std::string& dir, const std::function<std::optional<int>(const std::string&)>& pid_of,
    const PidAlive& alive);

// This machine's host name (the part before the first dot), "" when it cannot be read.
std::string ShortHostName();

}  // namespace pipette
