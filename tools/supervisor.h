// The tool's supervisor: --max-memory and --timeout over the tool and every
// process it starts (compiler, instrumented program, zoltan_phg, mpirun),
// the one temporary directory they all write in, and stop signals.
//
//   start_supervision({max_memory, timeout, out});  // once the flags are checked
//   set_activity("estimating");                     // named if a limit stops the run
//   discard_on_stop(build_dir);                     // removed if the run is stopped
//
// Children inherit TMPDIR = the tool's temporary directory (under --out when
// given), so their files (the hypergraph Zoltan reads, clang's and Open
// MPI's temporaries) count against --max-memory and go when the tool ends.
// A watcher thread sums the resident memory of the tool and its descendants
// and the bytes of that directory; past the limit, or past --timeout, it
// stops every descendant, names the one that grew, removes the temporary
// directory and what discard_on_stop named, and ends the tool with exit
// status 3. A stop signal (SIGINT, SIGTERM, SIGHUP) is passed on to every
// descendant the same way, and the tool then dies of it, saying what it
// was doing. The tool is its descendants' subreaper (what the program
// forks and leaves stays a descendant, stopped with the others, also when
// the tool ends normally), and the processes it runs die with it even when
// it is killed (instrumented_build.cc: a parent-death signal).
#ifndef COMMANALYZER_TOOLS_SUPERVISOR_H_
#define COMMANALYZER_TOOLS_SUPERVISOR_H_

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace commanalyzer::cli {

struct Supervision {
  std::uint64_t max_memory_bytes = 0;  // 0: none
  double timeout_seconds = 0;          // 0: none; counted from start_supervision
  std::filesystem::path out;           // --out, or empty: the temporary directory goes under TMPDIR
};

// Starts the watcher; the temporary directory lasts until the tool exits.
// Throws RunError when the directory cannot be made.
void start_supervision(const Supervision& limits);

// The temporary directory the user's TMPDIR names (or /tmp): for what the
// tool keeps after it ends (analyze's profile without --out).
std::filesystem::path user_temp_directory();

// What the tool is doing, for the message of a limit ("running the
// instrumented program").
void set_activity(const std::string& activity);

// A process that checks its own memory and names what grew in it (the
// instrumented program's runtime): not counted in the total, so that its
// own message comes first.
void limits_itself(pid_t pid);

// A temporary folder of the tool's outside its temporary directory
// (analyze's build without --out, whose profile is kept): its files count
// against --max-memory too.
void count_against_limit(const std::filesystem::path& dir);

// Removed if the supervisor stops the run; forget_on_stop when the tool
// itself has dealt with it.
void discard_on_stop(const std::filesystem::path& path);
void forget_on_stop(const std::filesystem::path& path);

// Blocks for ever while the supervisor is stopping the tool: called before
// a result is put in place, which would then pass for complete.
void hold_if_stopping();

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_SUPERVISOR_H_
