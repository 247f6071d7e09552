#include "tools/instrumented_build.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace commanalyzer::cli {
namespace fs = std::filesystem;

namespace {

// Runs argv, waiting; returns the raw wait status. Prints a progress line to
// stderr every 10 s when `progress` names what is running.
int spawn_and_wait(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                   const std::string& progress) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> env;
  for (auto& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);

  pid_t pid = 0;
  if (const int err = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), env.data()); err != 0) {
    throw RunError(absl::StrCat("cannot start ", argv[0], ": ", std::strerror(err)));
  }
  const auto start = std::chrono::steady_clock::now();
  int next_report = 10, status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, progress.empty() ? 0 : WNOHANG);
    if (done == pid) return status;
    if (done < 0) throw RunError(absl::StrCat("waiting for ", argv[0], ": ", std::strerror(errno)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds >= next_report) {
      std::cerr << absl::StrFormat("[commanalyzer] %s: %ds elapsed\n", progress, next_report);
      next_report += 10;
    }
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

}  // namespace

Toolchain Toolchain::locate() {
  Toolchain t;
  t.plugin = find_runfile("instrument/libcommanalyzer_pass.so");
  t.runtime = find_runfile("instrument/libruntime.pic.lo");
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
    // is one value instance (pass.cpp, loopResults), and a loop the
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
  const fs::path program = request.work_dir / "program";
  std::vector<std::string> argv = {toolchain.cxx, "-o", program.string()};
  argv.insert(argv.end(), objects.begin(), objects.end());
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

void run_instrumented(const fs::path& program, const std::vector<std::string>& args, const fs::path& profile) {
  std::error_code ec;
  fs::remove(profile, ec);
  std::vector<std::string> argv = {program.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const int status = spawn_and_wait(argv, {absl::StrCat("COMMANALYZER_PROFILE=", profile.string())},
                                    "instrumented program running");
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
}

}  // namespace commanalyzer::cli
