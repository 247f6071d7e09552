#include "tools/supervisor.h"

#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/cli_errors.h"
#include "tools/limits.h"

namespace commanalyzer::cli {
namespace fs = std::filesystem;

namespace {

// Set by the stop-signal handler; the watcher acts on it.
volatile sig_atomic_t g_stop_signal = 0;
extern "C" void note_stop_signal(int signal) { g_stop_signal = signal; }

struct Process {
  pid_t pid = 0;
  std::string name;
  std::uint64_t resident = 0;
};

// /proc/PID/stat: "PID (NAME) STATE PPID ..."; the name may hold spaces and
// parentheses, so it ends at the last ')'.
bool read_stat(pid_t pid, std::string* name, char* state, pid_t* parent) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text;
  if (!std::getline(in, text)) return false;
  const std::size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 4 >= text.size()) return false;
  *name = text.substr(open + 1, close - open - 1);
  *state = text[close + 2];
  int ppid = 0;
  if (!absl::SimpleAtoi(text.substr(close + 4, text.find(' ', close + 4) - close - 4), &ppid)) return false;
  *parent = ppid;
  return true;
}

// A process's name as the user knows it: its program's file name (a
// program that re-executes itself through /proc/self/exe, as zoltan_phg
// does, is "exe" to the kernel), else the kernel's name.
std::string program_name(pid_t pid, const std::string& kernel_name) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/cmdline"));
  std::string first;
  if (!std::getline(in, first, '\0') || first.empty()) return kernel_name;
  return fs::path(first).filename().string();
}

// Every living (not zombie) process below `root`, parents first.
std::vector<Process> descendants(pid_t root) {
  std::multimap<pid_t, Process> by_parent;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    Process p{pid, "", 0};
    char state = 0;
    pid_t parent = 0;
    if (!read_stat(pid, &p.name, &state, &parent) || state == 'Z') continue;
    by_parent.emplace(parent, std::move(p));
  }
  std::vector<Process> out;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    const pid_t parent = todo.back();
    todo.pop_back();
    for (auto [it, end] = by_parent.equal_range(parent); it != end; ++it) {
      out.push_back(it->second);
      out.back().name = program_name(it->second.pid, it->second.name);
      out.back().resident = resident_bytes(it->second.pid);
      todo.push_back(it->second.pid);
    }
  }
  return out;
}

std::uint64_t bytes_under(const fs::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code size_error;
    if (it->is_regular_file(size_error)) total += it->file_size(size_error);
  }
  return total;
}

std::string process_list(const std::vector<Process>& processes) {
  return absl::StrJoin(processes, ", ", [](std::string* out, const Process& p) {
    absl::StrAppend(out, p.name, " (pid ", p.pid, ")");
  });
}

class Supervisor {
 public:
  void start(const Supervision& limits) {
    limits_ = limits;
    const fs::path user_temp = user_temp_directory();  // read (and kept) before TMPDIR changes below
    // Absolute: children run elsewhere, and Open MPI (zoltan_phg under
    // mpirun) reads a relative TMPDIR from the root.
    const fs::path parent = fs::absolute(limits.out.empty() ? user_temp : limits.out);
    std::string pattern = (parent / ".commanalyzer-tmp-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw RunError(absl::StrCat("cannot create a temporary directory in ", parent.string()));
    }
    temp_ = pattern;
    setenv("TMPDIR", temp_.c_str(), 1);
    // What a child forks and leaves behind is reparented here, not to init:
    // still a descendant, stopped with the others.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct sigaction action {};
    action.sa_handler = note_stop_signal;
    sigemptyset(&action.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
    start_time_ = std::chrono::steady_clock::now();
    watcher_ = std::thread([this] { watch(); });
  }

  // At the tool's normal end: the watcher stops, what is left of the
  // processes it started (a daemon the program forked) ends, the
  // temporary files go.
  ~Supervisor() {
    if (!watcher_.joinable()) return;
    hold_if_stopping();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    watcher_.join();
    stop_descendants(SIGTERM);
    std::error_code ec;
    fs::remove_all(temp_, ec);
  }

  void set_activity(const std::string& activity) {
    std::lock_guard<std::mutex> lock(mutex_);
    activity_ = activity;
  }
  void limits_itself(pid_t pid) {
    std::lock_guard<std::mutex> lock(mutex_);
    self_limited_.insert(pid);
  }
  void count_against_limit(const fs::path& dir) {
    std::lock_guard<std::mutex> lock(mutex_);
    counted_.push_back(dir);
  }
  void discard_on_stop(const fs::path& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    discard_.insert(path);
  }
  void forget_on_stop(const fs::path& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    discard_.erase(path);
  }

  void hold_if_stopping() {
    bool stopping = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping = stopping_ || g_stop_signal != 0;
    }
    if (stopping) {
      for (;;) pause();  // the watcher ends the tool
    }
  }

 private:
  [[noreturn]] void die_of_signal(int signal) {
    std::cerr << "commanalyzer: " << strsignal(signal) << " while " << activity() << "; stopped" << std::endl;
    stop_everything(signal);
    std::cerr.flush();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    std::_Exit(128 + signal);
  }

  void watch() {
    auto next_memory_check = start_time_;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (done_) return;
      }
      if (const int signal = g_stop_signal; signal != 0) die_of_signal(signal);
      const auto now = std::chrono::steady_clock::now();
      const double seconds = std::chrono::duration<double>(now - start_time_).count();
      if (limits_.timeout_seconds > 0 && seconds >= limits_.timeout_seconds) {
        const std::vector<Process> running = descendants(getpid());
        stop_at_limit(absl::StrFormat("--timeout %g s reached while %s%s; no estimate (a cut-off run is not a result)",
                                      limits_.timeout_seconds, activity(),
                                      running.empty() ? "" : "; stopped " + process_list(running)));
      }
      if (limits_.max_memory_bytes > 0 && now >= next_memory_check) {
        next_memory_check = now + std::chrono::milliseconds(250);
        check_memory();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void check_memory() {
    std::vector<Process> parts = descendants(getpid());
    std::uint64_t files = bytes_under(temp_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::erase_if(parts, [&](const Process& p) { return self_limited_.count(p.pid) != 0; });
      for (const fs::path& dir : counted_) files += bytes_under(dir);
    }
    parts.push_back({getpid(), "commanalyzer (this tool)", resident_bytes(getpid())});
    parts.push_back({0, "its temporary files", files});
    std::uint64_t total = 0;
    for (const Process& p : parts) total += p.resident;
    if (total <= limits_.max_memory_bytes) return;
    std::sort(parts.begin(), parts.end(), [](const Process& a, const Process& b) { return a.resident > b.resident; });
    std::string shares;
    for (const Process& p : parts) {
      if (p.resident == 0) continue;
      absl::StrAppend(&shares, shares.empty() ? "" : ", ", p.name, p.pid > 0 && p.pid != getpid() ? absl::StrCat(" (pid ", p.pid, ")") : "",
                      " ", format_bytes(p.resident));
    }
    stop_at_limit(absl::StrCat("the tool and the processes it started reached ", format_bytes(total), ", past --max-memory ",
                               format_bytes(limits_.max_memory_bytes), ", while ", activity(), ": ", shares,
                               "; stopped; no estimate"));
  }

  std::string activity() {
    std::lock_guard<std::mutex> lock(mutex_);
    return activity_;
  }

  [[noreturn]] void stop_at_limit(const std::string& message) {
    stop_everything(SIGTERM);
    std::cerr << "commanalyzer: " << message << std::endl;
    std::_Exit(3);
  }

  // Every descendant gets `signal`, and SIGKILL if still there 3 s later;
  // then the temporary directory and the files marked to discard go. The
  // tool's other threads wait (a result written now would be passed off as
  // complete).
  void stop_everything(int signal) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    stop_descendants(signal);
    std::lock_guard<std::mutex> lock(mutex_);
    std::error_code ec;
    fs::remove_all(temp_, ec);
    for (const fs::path& path : discard_) fs::remove_all(path, ec);
  }

  // `signal` to every descendant, SIGKILL to those still there 3 s later.
  static void stop_descendants(int signal) {
    const auto start = std::chrono::steady_clock::now();
    for (std::vector<Process> alive = descendants(getpid()); !alive.empty(); alive = descendants(getpid())) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) signal = SIGKILL;
      for (const Process& p : alive) kill(p.pid, signal);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  Supervision limits_;
  fs::path temp_;
  std::chrono::steady_clock::time_point start_time_;
  std::thread watcher_;
  std::mutex mutex_;
  std::string activity_ = "estimating";
  std::set<pid_t> self_limited_;
  std::set<fs::path> discard_;
  std::vector<fs::path> counted_;
  bool done_ = false, stopping_ = false;
};

Supervisor& supervisor() {
  static Supervisor s;
  return s;
}

}  // namespace

void start_supervision(const Supervision& limits) { supervisor().start(limits); }

fs::path user_temp_directory() {
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    return fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  }();
  return dir;
}

void set_activity(const std::string& activity) { supervisor().set_activity(activity); }
void limits_itself(pid_t pid) { supervisor().limits_itself(pid); }
void count_against_limit(const fs::path& dir) { supervisor().count_against_limit(dir); }
void discard_on_stop(const fs::path& path) { supervisor().discard_on_stop(path); }
void forget_on_stop(const fs::path& path) { supervisor().forget_on_stop(path); }
void hold_if_stopping() { supervisor().hold_if_stopping(); }

}  // namespace commanalyzer::cli
