#include "pipette/sandbox/sandbox.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipette/util/temp_dir.h"

namespace pipette::sandbox {
namespace {

namespace fs = std::filesystem;

// The user a root controller runs programs as: RLIMIT_NPROC does not bind a process whose real
// user is root, and the sandbox's user namespace maps its user to the caller's.
constexpr const char* kNobody = "65534";

// The threads of this process's real user now (RLIMIT_NPROC counts threads): a user other than
// root is bound by it over all of them, so the sandbox's allowance comes on top.
int ThreadsOfThisUser() {
  const uid_t uid = getuid();
  int n = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st;
    if (stat(entry.path().c_str(), &st) != 0 || st.st_uid != uid) continue;
    std::ifstream status(entry.path() / "status");
    int threads = 1;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Threads:", 0) == 0) {
        threads = std::max(1, std::atoi(line.c_str() + 8));
        break;
      }
    }
    n += threads;
  }
  return n;
}

std::string Tail(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(s.size() - n);
}

}  // namespace

Result<Tools> FindTools() {
  Tools t;
  const std::pair<std::string*, std::pair<const char*, const char*>> wanted[] = {
      {&t.bwrap, {"bwrap", "bubblewrap"}},
      {&t.prlimit, {"prlimit", "util-linux"}},
      {&t.setpriv, {"setpriv", "util-linux"}}};
  for (const auto& [out, what] : wanted) {
    auto path = FindOnPath(what.first);
    if (!path) {
      return InputError(
          fmt::format("the sandbox that runs model-written programs needs {} (Debian's {} package; "
                      "scripts/setup.sh installs it)",
                      what.first, what.second));
    }
    *out = *path;
  }
  // Debian's interpreter, whatever PATH puts first: it is under /usr, the only folder bound
  // into the sandbox.
  std::error_code ec;
  const fs::path real = fs::canonical("/usr/bin/python3", ec);
  if (ec || real.string().rfind("/usr/", 0) != 0) {
    return InputError(
        "the sandbox runs programs with the system's /usr/bin/python3 (Debian's python3 "
        "package), which is missing");
  }
  t.python = real.string();
  return t;
}

std::vector<std::string> Sandbox::Argv() const {
  std::vector<std::string> argv;
  const bool root = geteuid() == 0;
  if (root) {
    argv = {tools_.setpriv, "--reuid=" + std::string(kNobody), "--regid=" + std::string(kNobody),
            "--clear-groups"};
  }
  const int nproc = limits_.processes + (root ? 0 : ThreadsOfThisUser());
  const std::vector<std::string> rest = {
      tools_.prlimit, fmt::format("--cpu={}", limits_.cpu_s),
      fmt::format("--as={}", limits_.address_space), fmt::format("--nproc={}", nproc),
      fmt::format("--fsize={}", limits_.file_bytes), "--core=0", "--",
      // bubblewrap: every namespace of its own (network included: only a loopback of its own),
      // no capabilities, killed with its parent. The program is the PID namespace's first
      // process: bubblewrap reaps it itself (its own init would be left a zombie for the
      // machine's init to reap, still counted against the process limit), and everything it
      // starts dies with it.
      tools_.bwrap, "--unshare-all", "--unshare-user", "--uid", kNobody, "--gid", kNobody,
      "--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL",
      // A clear environment: no secret of the controller's reaches the program.
      "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv",
      "PYTHONDONTWRITEBYTECODE", "1",
      // The system read-only (/usr, and the merged /lib, /lib64, /bin where they are links).
      "--ro-bind", "/usr", "/usr", "--ro-bind-try", "/lib", "/lib", "--ro-bind-try", "/lib64",
      "/lib64", "--ro-bind-try", "/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
      // A private /tmp of bounded size, the only place it can write.
      "--size", std::to_string(limits_.file_bytes), "--tmpfs", "/tmp", "--chdir", "/tmp",
      "--remount-ro", "/", "--", tools_.python, "-I", "-"};
  argv.insert(argv.end(), rest.begin(), rest.end());
  return argv;
}

Status Sandbox::Check() {
  auto v = RunPython("import sys\nsys.exit(0)\n");
  if (!v) return v.error();
  if (!v->passed) {
    return RuntimeError(
        fmt::format("the sandbox cannot run programs here ({}{}): {}", v->outcome,
                    v->exit_code >= 0 ? fmt::format(", exit code {}", v->exit_code) : std::string(),
                    v->output.empty() ? "no message" : v->output));
  }
  return {};
}

Result<Verdict> Sandbox::RunPython(const std::string& program) {
  TempDir dir("pipette-sandbox");
  const std::string path = dir / "program.py";
  {
    std::ofstream out(path, std::ios::binary);
    out << program;
    if (!out) return RuntimeError(fmt::format("cannot write {}", path));
  }
  Command c{.argv = Argv(),
            .timeout_s = limits_.wall_s,
            .stdin_path = path,
            .max_output_bytes = limits_.output_bytes,
            .close_other_fds = true};
  auto r = runner_.Run(c);
  if (!r) return r.error();
  Verdict v;
  v.exit_code = r->exit_code;
  v.signal = r->signal;
  v.output = Tail(r->err + r->out, Verdict::kKeptOutput);
  if (r->timed_out) {
    v.outcome = "timeout";
  } else if (r->output_limited) {
    v.outcome = "output_limit";
  } else if (r->signal != 0) {
    v.outcome = "signal";
  } else if (r->exit_code > 128 && r->exit_code <= 128 + 64) {
    // bubblewrap exits 128 + N when the program died of signal N (SIGXCPU past its CPU time).
    v.outcome = "signal";
    v.signal = r->exit_code - 128;
  } else if (r->exit_code == 0) {
    v.outcome = "passed";
    v.passed = true;
  } else {
    v.outcome = "failed";
  }
  return v;
}

}  // namespace pipette::sandbox
