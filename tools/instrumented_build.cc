#include "tools/instrumented_build.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/limits.h"
#include "tools/supervisor.h"

extern char** environ;

namespace commanalyzer::cli {
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// SIGKILL, and waits for it to end.
void kill_child(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// fork and exec: the child dies with the tool (SIGKILL when the tool's
// main thread ends, even by SIGKILL), which posix_spawn cannot ask for.
// Returns the pid, or -errno when the program could not be started.
pid_t start_child(std::vector<char*>& args, std::vector<char*>& env) {
  int report[2];  // the child's exec error; closed by a successful exec
  if (pipe2(report, O_CLOEXEC) != 0) return -errno;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the tool is already gone
    close(report[0]);
    execvpe(args[0], args.data(), env.data());
    const int error = errno;
    (void)!write(report[1], &error, sizeof error);
    _exit(127);
  }
  const int fork_error = errno;
  close(report[1]);
  if (pid < 0) {
    close(report[0]);
    return -fork_error;
  }
  int error = 0;
  ssize_t got = 0;
  while ((got = read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (got == sizeof error) {
    waitpid(pid, nullptr, 0);
    return -error;
  }
  return pid;
}

// Runs argv, waiting; returns the raw wait status. Prints a progress line to
// stderr every 10 s when `progress` names what is running. With `limits`,
// the child checks its own memory (the supervisor leaves it out of its
// total) and is stopped here past a quarter more. Stop signals and
// --timeout are the supervisor's (supervisor.h).
int spawn_and_wait(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                   const std::string& progress, const RunLimits& limits = {}, std::uint64_t* peak_bytes = nullptr) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The tool's variables replace any the user exported (a stale
  // COMMANALYZER_PROFILE would send the profile elsewhere).
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (std::none_of(extra_env.begin(), extra_env.end(), [&](const std::string& x) { return name_of(x) == name_of(entry); })) {
      env_strings.push_back(entry);
    }
  }
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> env;
  for (auto& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);

  const pid_t pid = start_child(args, env);
  if (pid < 0) throw RunError(absl::StrCat("cannot start ", argv[0], ": ", std::strerror(-pid)));
  if (limits.max_memory_bytes > 0) limits_itself(pid);
  const auto start = std::chrono::steady_clock::now();
  int next_report = 10, status = 0;
  double next_memory_check = 0.5;
  for (;;) {
    struct rusage usage {};
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) {
      if (peak_bytes != nullptr) *peak_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
      return status;
    }
    if (done < 0 && errno != EINTR) throw RunError(absl::StrCat("waiting for ", argv[0], ": ", std::strerror(errno)));
    const double seconds = seconds_since(start);
    // The runtime checks memory itself and names what grew; this catches
    // what grows without stores or allocations, with slack so that the
    // runtime's message comes first.
    if (limits.max_memory_bytes > 0 && seconds >= next_memory_check) {
      next_memory_check = seconds + 0.5;
      if (const std::uint64_t resident = resident_bytes(pid); resident > limits.max_memory_bytes / 4 * 5) {
        kill_child(pid);
        throw LimitError(absl::StrCat("the instrumented program's resident memory reached ", format_bytes(resident),
                                      ", past --max-memory ", format_bytes(limits.max_memory_bytes),
                                      ", and it was stopped; no estimate"));
      }
    }
    if (!progress.empty() && seconds >= next_report) {
      std::cerr << absl::StrFormat("[commanalyzer] %s: %ds elapsed\n", progress, next_report);
      next_report += 10;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(progress.empty() ? 5 : 50));
  }
}

bool is_cxx(const fs::path& source) {
  const std::string ext = source.extension().string();
  return ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".C" || ext == ".c++";
}

fs::path find_runfile(const std::string& relative) {
  if (const char* home = std::getenv("COMMANALYZER_HOME"); home && *home) {
    if (fs::exists(fs::path(home) / relative)) return fs::path(home) / relative;
  }
  std::vector<fs::path> roots;
  if (const char* dir = std::getenv("RUNFILES_DIR"); dir && *dir) roots.emplace_back(dir);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(self.string() + ".runfiles");
  for (const fs::path& root : roots) {
    if (fs::exists(root / "commanalyzer" / relative)) return root / "commanalyzer" / relative;
  }
  throw RunError(absl::StrCat("cannot find ", relative,
                              " next to the tool; run it from Bazel (bazel-bin/tools/commanalyzer) or set "
                              "COMMANALYZER_HOME to a directory holding it"));
}

// Whether one of the objects defines main (llvm-nm), so that a source
// without one gets a plain message instead of the linker's.
bool defines_main(const std::vector<std::string>& objects) {
  const fs::path listing = fs::path(objects.front()).parent_path() / "symbols.txt";
  std::vector<std::string> argv = {"sh", "-c", "exec llvm-nm-16 --defined-only --extern-only --just-symbol-name \"$@\" > \"$0\"",
                                   listing.string()};
  argv.insert(argv.end(), objects.begin(), objects.end());
  const int status = spawn_and_wait(argv, {}, "");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return true;  // unknown: let the linker say
  std::ifstream in(listing);
  for (std::string symbol; std::getline(in, symbol);) {
    if (symbol == "main") return true;
  }
  return false;
}

}  // namespace

fs::path find_hypergraph_partitioner() {
  try {
    return find_runfile("tools/zoltan_phg");
  } catch (const RunError&) {
    return {};
  }
}

fs::path find_mpi_tool() { return find_runfile("tools/commanalyzer_mpi"); }

Toolchain Toolchain::locate() {
  Toolchain t;
  t.plugin = find_runfile("instrument/libcommanalyzer_pass.so");
  t.runtime = find_runfile("instrument/libruntime.pic.lo");
  t.runtime_queries = find_runfile("instrument/libruntime_queries.pic.lo");
  t.include_dir = find_runfile("include/commanalyzer/annotate.h").parent_path().parent_path();
  return t;
}

fs::path build_instrumented(const Toolchain& toolchain, const BuildRequest& request) {
  fs::create_directories(request.work_dir);
  std::vector<std::string> objects;
  for (std::size_t i = 0; i < request.sources.size(); ++i) {
    const fs::path& source = request.sources[i];
    if (!fs::is_regular_file(source)) throw RunError(absl::StrCat("source file '", source.string(), "' not found"));
    const fs::path object = request.work_dir / absl::StrCat(i, "_", source.stem().string(), ".o");
    std::vector<std::string> argv = {is_cxx(source) ? toolchain.cxx : toolchain.cc,
                                     "-c",
                                     "-O1",
                                     "-g",
                                     absl::StrCat("-fpass-plugin=", toolchain.plugin.string()),
                                     absl::StrCat("-I", toolchain.include_dir.string())};
    argv.insert(argv.end(), request.compile_flags.begin(), request.compile_flags.end());
    // No vectors: one label per vector would merge its lanes' slices (a
    // vectorised stencil stores two points as one value instance), so the
    // estimate would depend on the -O level. No unrolling: a loop's result
    // is one value instance (instrument/pass/loop_results.h), and a loop the
    // optimizer unrolls away has none. After the user's flags: clang lets
    // a later -O2/-O3 turn them back on.
    argv.insert(argv.end(), {"-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"});
    // Line tables name the source sites of the report's "where" section;
    // they change no code.
    if (std::find(request.compile_flags.begin(), request.compile_flags.end(), "-g0") != request.compile_flags.end()) {
      argv.push_back("-gline-tables-only");
    }
    argv.insert(argv.end(), {source.string(), "-o", object.string()});
    const int status = spawn_and_wait(argv, {}, "");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw RunError(absl::StrCat("compiling ", source.string(), " failed (", argv[0],
                                  " exit status ", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                  "); clang's diagnostics are above"));
    }
    objects.push_back(object.string());
  }
  if (!defines_main(objects)) {
    throw UnsupportedError(absl::StrCat("no main() in the sources (", absl::StrJoin(request.sources, " ", [](std::string* out, const fs::path& p) { out->append(p.string()); }),
                                        "): the program to analyse needs one"));
  }
  const fs::path program = request.work_dir / "program";
  std::vector<std::string> argv = {toolchain.cxx, "-o", program.string()};
  argv.insert(argv.end(), objects.begin(), objects.end());
  argv.push_back(toolchain.runtime_queries.string());  // before the runtime it calls
  argv.push_back(toolchain.runtime.string());
  argv.insert(argv.end(), request.link_flags.begin(), request.link_flags.end());
  for (const char* lib : {"-labsl_raw_hash_set", "-labsl_hash", "-labsl_city", "-labsl_low_level_hash", "-lmetis", "-lm"}) {
    argv.emplace_back(lib);
  }
  const int status = spawn_and_wait(argv, {}, "");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw RunError(absl::StrCat("linking the instrumented program failed (", absl::StrJoin(argv, " "), ")"));
  }
  return program;
}

std::uint64_t run_instrumented(const fs::path& program, const std::vector<std::string>& args, const fs::path& profile,
                               const RunLimits& limits) {
  std::error_code ec;
  fs::remove(profile, ec);
  // The runtime's refusals, limits and warnings, one per line: "refused
  // MESSAGE", "limit MESSAGE", "warning MESSAGE".
  const fs::path status_file = profile.string() + ".status";
  fs::remove(status_file, ec);
  std::vector<std::string> argv = {program.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = {absl::StrCat("COMMANALYZER_PROFILE=", profile.string()),
                                  absl::StrCat("COMMANALYZER_STATUS=", status_file.string())};
  if (limits.max_memory_bytes > 0) env.push_back(absl::StrCat("COMMANALYZER_MAX_MEMORY=", limits.max_memory_bytes));
  if (limits.record_iterations > 0) {  // and one more: it shows which of the last one's results are used
    env.push_back(absl::StrCat("COMMANALYZER_RECORD_ITERATIONS=", limits.record_iterations + 1));
  }
  std::uint64_t peak_bytes = 0;
  const int status = spawn_and_wait(argv, env, "instrumented program running", limits, &peak_bytes);
  std::ifstream notes(status_file);
  for (std::string line; std::getline(notes, line);) {
    const std::string kind = line.substr(0, line.find(' '));
    const std::string message = line.substr(std::min(line.size(), kind.size() + 1));
    if (kind == "refused") throw UnsupportedError(message);
    if (kind == "limit") throw LimitError(message);
    if (kind == "warning") std::cerr << "commanalyzer: warning: " << message << "\n";
  }
  if (WIFSIGNALED(status)) {
    throw RunError(absl::StrCat("the program was killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)),
                                "); no estimate: a crashed run's profile is incomplete"));
  }
  if (WEXITSTATUS(status) != 0) {
    throw RunError(absl::StrCat("the program exited with status ", WEXITSTATUS(status),
                                "; no estimate: a failed run is not a result"));
  }
  if (!fs::exists(profile)) {
    throw RunError("the program exited normally but wrote no profile (did it call _exit or exec?)");
  }
  return peak_bytes;
}

}  // namespace commanalyzer::cli
