// commanalyzer: predict the MPI communication of a sequential program.
//
//   commanalyzer analyze  SOURCES... [flags] [-I.. -D.. -O..] [-- program args]
//   commanalyzer estimate PROFILE [--procs ...] [--json F] [--html F] [--out DIR]
//   commanalyzer demo     [--procs ...] [--n N] [--steps T] [--json F] [--html F] [--out DIR]
//
// See `commanalyzer help` for every subcommand. Every subcommand that
// estimates reads its flags into one EstimateRequest before any work
// (estimate_request.h), asks run_estimate for the estimate (estimate_run.h)
// and formats it; every failure ends with one exit status map
// (cli_errors.h).
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/record/profile_io.h"
#include "tools/benchgen_command.h"
#include "tools/builtin_examples.h"
#include "tools/cli_errors.h"
#include "tools/compare_command.h"
#include "tools/distributed_partitioning.h"
#include "tools/estimate_request.h"
#include "tools/estimate_run.h"
#include "tools/huge_pages.h"
#include "tools/instrumented_build.h"
#include "tools/large_blocks.h"
#include "tools/limits.h"
#include "tools/model_command.h"
#include "tools/output_files.h"
#include "tools/place_command.h"
#include "tools/report_command.h"
#include "tools/supervisor.h"
#include "tools/trace_command.h"

// The estimate's own flags are in estimate_request.cc; these are what the
// subcommands write and demo's example.
ABSL_DECLARE_FLAG(std::string, distribution);  // estimate_request.cc

ABSL_FLAG(std::string, json, "", "also write the estimates (compare: the comparison) as JSON to this file");
ABSL_FLAG(std::string, html, "",
          "also write the estimates as one self-contained HTML page to this file: the table, bytes and time "
          "against the process count, and per count heatmaps of the pair matrices, bytes per rank, message "
          "sizes, bytes per iteration, where, owner maps and candidates (the JSON's numbers; no network needed)");
ABSL_FLAG(std::string, out, "",
          "also write CSV matrices, SVG heatmaps, estimate.json, index.html (as --html), the graph (dot) and, "
          "for analyze, the instrumented build and its profile into this directory (benchgen: where bench.c and "
          "bench.h go)");
ABSL_FLAG(std::string, output, "", "build: where to write the instrumented executable");
ABSL_FLAG(int, n, 128, "demo: grid points per side of the built-in Heat2D example");
ABSL_FLAG(int, steps, 10, "demo: time steps of the built-in Heat2D example");
ABSL_FLAG(std::string, sizes, "", "model: the sizes to analyse the program at, at least 3 (e.g. 32,48,64,96)");
ABSL_FLAG(std::string, predict, "", "model: the sizes to predict (default: 2, 4 and 8 times the largest of --sizes)");
ABSL_FLAG(std::string, extrap, "", "model: also write the analyses to this file in Extra-P's text input format");

namespace commanalyzer::cli {
namespace {

constexpr const char* kUsage = R"(commanalyzer: predict the communication an MPI version of a sequential
program would need on N processes, from the sequential program itself.

Usage:
  commanalyzer analyze SOURCES... [--procs 2,4,...] [--json FILE] [--html FILE]
                       [--out DIR] [--record-iterations K]
                       [-I DIR] [-D NAME[=VALUE]] [-U NAME] [-O2] [-std=...]
                       [-f...] [-W...] [-m...] [-g] [-l LIB] [-L DIR] [-- PROGRAM ARGUMENTS...]
      Compiles the C/C++ sources with clang-16 and the CommAnalyzer pass,
      runs the program (its output passes through), and prints the
      predicted communication for each process count. Mark the region of
      interest and iterations with include/commanalyzer/annotate.h
      (CA_REGION_BEGIN, CA_ITERATION, CA_REGION_END); without marks the whole
      run counts. --record-iterations K costs the first K iterations of a
      long run, analyses one more, and counts every later one as the K-th.
      The profile is kept for `commanalyzer estimate` (under
      --out DIR/build with the build, else alone in a temporary directory,
      which stays until you delete it).
  commanalyzer estimate PROFILE [--procs 2,4,...] [--json FILE] [--html FILE]
                        [--out DIR]
      Re-estimates from a saved profile without re-running the program.
      With --partitioner parmetis under mpirun -np K, the location graph is
      partitioned over the K MPI ranks (ParMETIS API, provided by PT-Scotch);
      rank 0 prints the report (docs/SCALING.md).
  commanalyzer build SOURCES... --output FILE [compiler flags, as for analyze]
      Only compiles and links the instrumented program; running it writes a
      profile to $COMMANALYZER_PROFILE (default ./commanalyzer.profile).
  commanalyzer demo [--procs 2,4,...] [--n 128] [--steps 10] [--json FILE]
                    [--html FILE] [--out DIR]
      Runs the analysis on a built-in Heat2D event stream (no compiler needed)
      and prints the predicted communication for each process count.
  commanalyzer trace PROFILE --procs P [--csv FILE]
      Every predicted message for P processes, from a saved profile (no
      re-run), as CSV (to FILE, else standard output) with the columns
        iteration,src,dst,bytes,kind,site
      One row per point-to-point message as an MPI code sends it (kind p2p:
      what one process sends another at one point of an iteration, one per
      loop or pipelined stage that needs values the earlier ones could not
      carry; site = the source line, file:line, that consumes most of its
      bytes), then the iteration's collective calls (kind bcast, src = the
      root, or allreduce, src = -1; dst = -1; bytes = one rank's block; site
      empty). The last iteration number counts what follows the last
      iteration mark.
  commanalyzer benchgen PROFILE --procs P --out DIR [--compute_ns T]
      Writes DIR/bench.c and DIR/bench.h: a compact C + MPI program that
      performs that communication (Isend/Irecv + Waitall per iteration,
      MPI_Bcast / MPI_Allreduce; repeated iterations as loops, senders as
      rank lists). Build: mpicc DIR/bench.c -IDIR -o bench; run: mpirun -np P
      ./bench. Before its communication each iteration busy-waits
      --compute_ns (default 1) ns per value instance its busiest process
      computes; --compute_ns 0: communication only. At the end the
      benchmark prints the bytes (logical volume) and messages it sent per
      iteration, as the estimate counts them, and the slowest rank's
      seconds per iteration.
  commanalyzer place PROFILE --procs P --nodes K --cores-per-node C
                     [--rankfile FILE] [--hosts NAME,NAME,...]
      Estimates the P x P matrix from a saved profile (as estimate does,
      same --distribution and cost flags), then places the P processes on
      K nodes of C cores (K x C >= P) keeping as many point-to-point bytes
      inside nodes as it can: METIS k-way into the nodes, refined by
      Kernighan-Lin swaps from many starts. Prints the share of bytes kept
      inside nodes for it and for by-rank, round-robin and random placement
      (mean of 10000, fixed seed); --rankfile writes an Open MPI rankfile
      (rank N=HOST slot=S; hosts node0.. unless --hosts names them).
  commanalyzer model SOURCES... --sizes N1,N2,N3[,...] [--procs 4,16,...]
                     [--predict N,...] [--extrap FILE] [compiler flags]
                     -- PROGRAM ARGUMENTS with {n} (or {n*K}) where the size goes
      Builds the program once and analyses it at each size (at least 3),
      then fits bytes, messages and collective calls per iteration as
      functions of the size n and the process count p in Extra-P's normal
      form (c0 + sum c_k n^i log2(n)^j p^k log2(p)^l; docs/SCALING.md).
      Each process count keeps at every size the distribution it keeps at
      the largest. Prints the formulas, the fit beside every analysis, and
      predictions at --predict (default: 2, 4 and 8 times the largest size).
  commanalyzer compare ESTIMATE.json MEASURED... [--tolerance 8] [--json FILE]
                       [--baseline ESTIMATE.json,MEASURED,...]
      The estimate (--json of analyze or estimate) beside measured MPI runs
      of the same program, one file per process count: the PMPI counter's
      JSON (examples/measure/pmpi_counter.c; with MPI_Pcontrol marks it
      counts the same region and iterations) or mpiP's report (no receivers:
      per process, not per pair; collectives converted to the logical
      volume, calls = records / N; bytes exact with MPIP=-e, else to 4
      digits; it counts sends to MPI_PROC_NULL, and MPI_Pcontrol(2), the
      counter's iteration mark, resets it). Prints per process count: measured and estimated bytes,
      accuracy = 1 - |est - meas| / meas on total bytes and the share of
      the error in point-to-point and collective bytes (as
      docs/VALIDATION.md), messages; then per process, per pair (src ->
      dst, the estimate's process numbers) and per iteration, measured
      beside estimated bytes and messages; and the measured MPI call sites
      beside the estimate's sites. '!' marks a difference larger than
      --tolerance percent of the larger side (default 8, the paper's bound
      on a whole program's error: a marked pair is further off than the
      whole program may be); a pair only one side has is always marked.
      --baseline names the same files for a shorter run of the same
      programs (e.g. one iteration): each side is compared less its
      baseline, so that what both runs do outside the kernel (set-up,
      reading input, a final gather) cancels, for MPI codes without
      MPI_Pcontrol marks. A missing or unreadable file, a file of another
      format, a measured process count the estimate does not have and a
      baseline larger than its run are bad input.
  commanalyzer help
      This text, with every flag and its default.

Ownership (every subcommand that estimates): by default every array location
has one owner process for the whole region, as in owner-computes MPI codes;
arrays of one size are distributed alike. --distribution auto (default) costs
block, cartesian (a process grid over the array's grid shape) and, where an
array is indexed indirectly, metis and hypergraph, and keeps the fastest;
block, cartesian, metis or hypergraph force one; --distribution FILE
estimates your own map (docs/DISTRIBUTION.md).
--ownership=value partitions value instances instead (the paper's method;
--partitioner chooses how).

Columns: total bytes = point-to-point + collective bytes under the logical
volume convention (Bcast (N-1)m, Allreduce 2(N-1)m); messages = per
(sender, receiver, iteration), one per loop (or pipelined stage) that needs
values the earlier ones could not carry, plus one per collective call; time = predicted
communication time, Hockney model: a message of m bytes costs latency +
m / bandwidth (--latency, microseconds, default 1; --bandwidth, GB/s,
default 10: an InfiniBand-class network); an iteration costs its busiest
process's sends or receives plus its collectives (ceil(log2 N) rounds for a
Bcast, twice that for an Allreduce); the total sums the iterations. The
distribution kept is the candidate with the least predicted time: a
process's share of the computation and its waiting for others in an
iteration, --compute_ns per value instance (default 1: a stored result a
nanosecond), plus one latency per iteration and the busiest process's bytes
(docs/DISTRIBUTION.md). "where"
(for the largest count) names the source line consuming each exchange and
the loop sweeping it, per iteration; --json lists every site.

Exit status, the same for every subcommand: 0 estimate printed (or the file
asked for written); 1 the build or the program failed (compile error, crash,
non-zero exit) or a file could not be read or written (a missing or damaged
profile among them); 2 bad input (flags, paths, an empty or main-less source;
checked before any work) or a program the analysis cannot handle (one that
starts threads); 3 a limit was reached (--timeout, --max-memory); 128+N the
tool got signal N (SIGINT, SIGTERM and SIGHUP are passed on to every process
it started, which ends with it). Temporary files go in one folder under --out
(or TMPDIR) and are removed as the tool ends.)";

// What each subcommand that estimates can do with the request: a list of
// counts or one, ownership by value, ParMETIS under mpirun.
const std::map<std::string, Subcommand, std::less<>> kSubcommands = {
    {"analyze", {"analyze", false, true, false}}, {"estimate", {"estimate", false, true, true}},
    {"demo", {"demo", false, true, false}},       {"trace", {"trace", true, false, false}},
    {"benchgen", {"benchgen", true, false, false}}, {"place", {"place", true, false, false}},
    {"model", {"model", false, false, false}}};

// The flags of ownership by value: for the subcommands that take it
// (Subcommand::value_ownership).
const std::set<std::string, std::less<>> kValueOwnershipFlags = {"ownership", "partitioner"};

// The subcommands a flag is for; any other is for every subcommand that
// estimates (kSubcommands) or, in kValueOwnershipFlags, for those taking
// ownership by value. build takes --output only.
const std::map<std::string, std::string, std::less<>> kFlagCommands = {
    {"json", "analyze, compare, demo, estimate"}, {"html", "analyze, demo, estimate"},
    {"out", "analyze, benchgen, demo, estimate"},
    {"output", "build"},          {"n", "demo"},     {"steps", "demo"},
    {"csv", "trace"},             {"nodes", "place"}, {"cores_per_node", "place"},
    {"rankfile", "place"},        {"hosts", "place"},  {"sizes", "model"},      {"predict", "model"},
    {"extrap", "model"}, {"record_iterations", "analyze, model"}, {"tolerance", "compare"}, {"baseline", "compare"}};

// Appends `text` to `out`, wrapped at 78 columns after `indent` spaces.
void append_wrapped(std::string& out, const std::string& text, std::size_t indent) {
  std::size_t column = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (column > 0 && column + 1 + word.size() > 78) {
      out += "\n";
      column = 0;
    }
    if (column == 0) {
      out.append(indent, ' ');
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out.append(word.data(), word.size());
    column += word.size();
  }
  out += "\n";
}

// Every flag the tool defines, from Abseil's registry (so none is left
// out), grouped by subcommand, with its default.
std::string flags_help() {
  std::map<std::string, std::map<std::string, const absl::CommandLineFlag*>> groups;
  std::string estimating, by_value;  // the estimate's flags: every subcommand that estimates
  for (const auto& [command, sub] : kSubcommands) {
    absl::StrAppend(&estimating, estimating.empty() ? "" : ", ", command);
    if (sub.value_ownership) absl::StrAppend(&by_value, by_value.empty() ? "" : ", ", command);
  }
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const std::string path = flag->Filename();
    absl::string_view file = path;
    absl::ConsumePrefix(&file, "external/commanalyzer/");  // built from another workspace
    if (!absl::StartsWith(file, "tools/") && !absl::StartsWith(file, "include/")) continue;  // Abseil's own
    const auto it = kFlagCommands.find(name);
    const std::string& commands = it != kFlagCommands.end()             ? it->second
                                  : kValueOwnershipFlags.contains(name) ? by_value
                                                                        : estimating;
    groups[commands][std::string(name)] = flag;
  }
  std::string out =
      "Flags (--name=VALUE or --name VALUE; booleans --name, --noname; a name's\nunderscores may be written as dashes):\n";
  for (const auto& [commands, flags] : groups) {
    out += absl::StrCat("\n  ", commands, ":\n");
    for (const auto& [name, flag] : flags) {
      const std::string value = flag->DefaultValue();
      out += absl::StrCat("    --", name, " (default: ", value.empty() ? "none" : value, ")\n");
      append_wrapped(out, flag->Help(), 8);
    }
  }
  return out;
}

std::string mkdtemp_or_throw() {
  std::string dir = (user_temp_directory() / "commanalyzer-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory");
  return dir;
}

int demo(const std::vector<char*>& positional, const EstimateRequest& request, const ReportOutputs& outputs) {
  if (positional.size() > 1) throw UsageError(absl::StrCat("demo takes no arguments, got '", positional[1], "'"));
  const int n = absl::GetFlag(FLAGS_n), steps = absl::GetFlag(FLAGS_steps);
  if (n < 3 || n > 8192) throw UsageError("--n: the grid needs between 3 and 8192 points per side");
  if (steps < 1 || steps > 100000) throw UsageError("--steps: give between 1 and 100000 time steps");
  std::cout << absl::StrFormat("built-in example: Heat2D, %dx%d grid, %d time steps, 5-point stencil\n", n, n, steps);
  Analyzer<> analyzer;
  examples::heat2d(analyzer, static_cast<std::uint64_t>(n), steps);
  write_report(run_estimate(analyzer.profile(), request, outputs.wants_graph()), outputs);
  return 0;
}

// Splits analyze's arguments: compiler flags (-I -D -U -O -std= -f -W -m -g
// -l -L) for clang, everything after `--` for the program, `--flag`s for
// Abseil, the rest are sources.
struct AnalyzeArgs {
  std::vector<char*> for_abseil;
  BuildRequest build;
  std::vector<std::string> program_args;
};

// "--max-memory=1G" -> "--max_memory=1G": flag names may be written with
// dashes. The strings live as long as the process (Abseil keeps pointers).
char* with_underscores(char* arg) {
  static std::deque<std::string> kept;
  std::string text = arg;
  if (text.rfind("--", 0) != 0 || text == "--") return arg;
  const std::size_t end = std::min(text.find('='), text.size());
  if (text.find('-', 2) >= end) return arg;
  std::replace(text.begin() + 2, text.begin() + static_cast<std::ptrdiff_t>(end), '-', '_');
  return kept.emplace_back(std::move(text)).data();
}

// A flag of ours that is not a boolean: "--name VALUE" takes the next
// argument. Unknown names are left to Abseil's error.
bool takes_value(const std::string& name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && !flag->IsOfType<bool>();
}

// Abseil ends the process with status 1 on an unknown flag or a value it
// cannot parse; the tool's status for bad input is 2, with the flag named.
// `args[0]` is the program.
void check_flags(const std::vector<char*>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string arg = args[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    const std::size_t eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && name.rfind("no", 0) == 0) {  // --noflag for a boolean
      absl::CommandLineFlag* positive = absl::FindCommandLineFlag(name.substr(2));
      if (positive != nullptr && positive->IsOfType<bool>() && eq == std::string::npos) continue;
    }
    if (flag == nullptr) throw UsageError(absl::StrCat("unknown flag '--", name, "' (commanalyzer help lists them)"));
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (flag->IsOfType<bool>()) {
      continue;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw UsageError(absl::StrCat("--", name, " needs a value"));
    }
    if (std::string error; !flag->ParseFrom(value, &error)) {
      throw UsageError(absl::StrCat("--", name, ": '", value, "': ", error));
    }
  }
}

AnalyzeArgs split_analyze_args(int argc, char** argv) {
  AnalyzeArgs out;
  out.for_abseil.push_back(argv[0]);
  for (int i = 2; i < argc; ++i) {
    argv[i] = with_underscores(argv[i]);
    const std::string arg = argv[i];
    if (arg == "--") {
      out.program_args.assign(argv + i + 1, argv + argc);
      break;
    }
    if (arg.rfind("--", 0) == 0) {
      out.for_abseil.push_back(argv[i]);
      // "--flag value" form: keep the value with its flag, even when it
      // starts with '-' (--procs -4 is a bad count, not a compiler option).
      if (arg.find('=') == std::string::npos && i + 1 < argc && takes_value(arg.substr(2))) {
        out.for_abseil.push_back(argv[++i]);
      }
      continue;
    }
    if (arg.size() >= 2 && arg[0] == '-') {
      const char kind = arg[1];
      std::string flag = arg;
      if (arg.size() == 2 && (kind == 'I' || kind == 'D' || kind == 'U' || kind == 'l' || kind == 'L')) {
        if (i + 1 >= argc) throw UsageError(absl::StrCat(arg, " needs a value"));
        flag += argv[++i];
      }
      if (kind == 'l' || kind == 'L') {
        out.build.link_flags.push_back(flag);
      } else if (std::string("IDUOfWmg").find(kind) != std::string::npos || arg.rfind("-std=", 0) == 0) {
        out.build.compile_flags.push_back(flag);
      } else {
        throw UsageError(absl::StrCat("unknown option '", arg, "' (compiler flags allowed: -I -D -U -O -std= -f -W -m -g -l -L)"));
      }
      continue;
    }
    out.build.sources.emplace_back(arg);
  }
  return out;
}

// Removes everything in `dir` but `keep`; `dir` too if `keep` is empty or
// not there.
void keep_only(const std::filesystem::path& dir, const std::filesystem::path& keep) {
  std::error_code ec;
  if (keep.empty() || !std::filesystem::exists(keep, ec)) {
    std::filesystem::remove_all(dir, ec);
    return;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path() != keep) std::filesystem::remove_all(entry.path(), ec);
  }
}

int analyze(AnalyzeArgs args, const EstimateRequest& request, const ReportOutputs& outputs) {
  if (args.build.sources.empty()) throw UsageError("analyze: give at least one C or C++ source file");
  for (const auto& source : args.build.sources) {
    if (!std::filesystem::is_regular_file(source)) {
      throw RunError(absl::StrCat("source file '", source.string(), "' not found"));
    }
  }
  args.build.work_dir =
      outputs.out.empty() ? std::filesystem::path(mkdtemp_or_throw()) : std::filesystem::path(outputs.out) / "build";
  const std::filesystem::path profile_path = args.build.work_dir / "program.profile";
  // Without --out the build lives in a temporary directory: only the
  // profile of a run that succeeded stays (for `estimate`).
  bool ran = false;
  if (outputs.out.empty()) {
    discard_on_stop(args.build.work_dir);
    count_against_limit(args.build.work_dir);
  }
  absl::Cleanup tidy = [&] {
    if (outputs.out.empty() && !ran) keep_only(args.build.work_dir, {});
  };
  const Toolchain toolchain = Toolchain::locate();
  std::cerr << "[commanalyzer] compiling " << args.build.sources.size() << " source file(s) with the pass\n";
  set_activity("compiling the program");
  const std::filesystem::path program = build_instrumented(toolchain, args.build);
  std::cerr << "[commanalyzer] running the instrumented program\n";
  set_activity("running the instrumented program");
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t run_peak = run_instrumented(program, args.program_args, profile_path,
                                                  RunLimits{request.max_memory_bytes, request.record_iterations});
  ran = true;
  if (outputs.out.empty()) {  // the build is done with; the profile stays, whatever happens next
    keep_only(args.build.work_dir, profile_path);
    forget_on_stop(args.build.work_dir);
  }
  std::cerr << absl::StrFormat("[commanalyzer] program finished in %.2fs (peak %s); estimating\n",
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                               format_bytes(run_peak));
  // Each analyze without --out keeps its own: say how large, and that it stays.
  std::error_code no_size;
  const auto bytes = std::filesystem::file_size(profile_path, no_size);
  const std::string kept =
      absl::StrCat("profile kept at ", profile_path.string(), " (",
                   no_size ? std::string() : absl::StrFormat("%.1f MB, ", static_cast<double>(bytes) / 1e6),
                   "until deleted; re-estimate: commanalyzer estimate ", profile_path.string(), " --procs ...)");
  set_activity(absl::StrCat("estimating (", kept, ")"));
  try {
    ProfileInfo info;
    const LoadedProfile profile = load_recorded_profile(profile_path.string(), &info);
    // A window as long as the loop: nothing beyond it to count.
    if (request.record_iterations > 0 && !profile.counts_beyond_window()) {
      std::cerr << absl::StrFormat(
          "commanalyzer: warning: --record-iterations %d: the region marked %d iteration%s (CA_ITERATION), no more "
          "than the window analyses: every one was costed\n",
          request.record_iterations, profile.iterations(), profile.iterations() == 1 ? "" : "s");
    }
    std::cout << "\n";
    print_run_facts(profile, info);
    write_report(run_estimate(profile, request, outputs.wants_graph()), outputs);
    std::cout << "\n" << kept << "\n";
    return 0;
  } catch (...) {
    std::cerr << "[commanalyzer] " << kept << "\n";  // the run need not be repeated
    throw;
  }
}

int build(int argc, char** argv) {
  AnalyzeArgs args = split_analyze_args(argc, argv);
  check_flags(args.for_abseil);
  absl::ParseCommandLine(static_cast<int>(args.for_abseil.size()), args.for_abseil.data());
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output.empty()) throw UsageError("build: give --output FILE for the instrumented executable");
  if (args.build.sources.empty()) throw UsageError("build: give at least one C or C++ source file");
  if (!args.program_args.empty()) throw UsageError("build: program arguments (after --) are for analyze");
  start_supervision({});
  args.build.work_dir = mkdtemp_or_throw();
  const std::filesystem::path program = build_instrumented(Toolchain::locate(), args.build);
  std::filesystem::copy_file(program, output, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove_all(args.build.work_dir);
  return 0;
}

int compare(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  for (int i = 2; i < argc; ++i) rest.push_back(with_underscores(argv[i]));
  check_flags(rest);
  return compare_command(absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data()), absl::GetFlag(FLAGS_json));
}

int estimate(const std::vector<char*>& positional, const EstimateRequest& request, const ReportOutputs& outputs) {
  ProfileInfo info;
  const LoadedProfile profile = load_recorded_profile(profile_argument(positional, "estimate"), &info);
  print_run_facts(profile, info);
  write_report(run_estimate(profile, request, outputs.wants_graph()), outputs);
  return 0;
}

// The report's outputs are analyze's, estimate's and demo's; another
// command given one would silently write nothing there (benchgen writes
// its program to --out).
void refuse_report_outputs(const std::string& command, const ReportOutputs& outputs) {
  std::vector<std::string> given;
  if (!outputs.json.empty()) given.push_back("--json");
  if (!outputs.html.empty()) given.push_back("--html");
  if (!outputs.out.empty() && command != "benchgen") given.push_back("--out");
  if (given.empty()) return;
  const char* what = command == "model" ? "; the model prints its formulas and table (--extrap FILE writes the analyses for Extra-P)"
                     : command == "benchgen" ? "; benchgen writes its program to --out"
                                             : "";
  throw UsageError(absl::StrCat(command, ": ", absl::StrJoin(given, ", "), given.size() == 1 ? " is" : " are",
                                " for analyze, estimate and demo", what));
}

int run(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  // help, or --help anywhere before the program's arguments.
  const auto program_args = std::find(argv + 1, argv + argc, std::string_view("--"));
  if (argc < 2 || std::string(argv[1]) == "help" ||
      std::find(argv + 1, program_args, std::string_view("--help")) != program_args) {
    std::cout << kUsage << "\n\n" << flags_help();
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "build") return build(argc, argv);
  if (command == "compare") return compare(argc, argv);
  const auto sub = kSubcommands.find(command);
  if (sub == kSubcommands.end()) {
    throw UsageError(absl::StrCat("unknown command '", command, "' (try: commanalyzer help)"));
  }
  // Abseil parses the flags of everything after the subcommand; analyze's
  // compiler flags and program arguments are split off first.
  AnalyzeArgs analyze_args;
  std::vector<char*> positional;
  if (command == "analyze" || command == "model") {
    analyze_args = split_analyze_args(argc, argv);
    check_flags(analyze_args.for_abseil);
    absl::ParseCommandLine(static_cast<int>(analyze_args.for_abseil.size()), analyze_args.for_abseil.data());
  } else {
    std::vector<char*> rest{argv[0]};
    for (int i = 2; i < argc; ++i) rest.push_back(with_underscores(argv[i]));
    check_flags(rest);
    positional = absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  }
  // Every flag is checked here, before any work; no output may overwrite
  // an input.
  std::vector<std::filesystem::path> inputs(analyze_args.build.sources.begin(), analyze_args.build.sources.end());
  for (std::size_t i = 1; i < positional.size(); ++i) inputs.emplace_back(positional[i]);
  inputs.emplace_back(absl::GetFlag(FLAGS_distribution));  // a map file, or a candidate's name (no file)
  note_input_files(std::move(inputs));
  const EstimateRequest request = request_from_flags(sub->second);
  const ReportOutputs outputs{absl::GetFlag(FLAGS_json), absl::GetFlag(FLAGS_html), absl::GetFlag(FLAGS_out)};
  // --partitioner parmetis (estimate only) re-executes the tool under MPI;
  // the other MPI ranks end here.
  if (request.partitioner == ValuePartitioner::kParmetis) join_distributed_partitioning(argv);
  const bool reports = command != "trace" && command != "benchgen" && command != "place" && command != "model";
  if (reports) {
    check_report_outputs(outputs);
  } else {
    refuse_report_outputs(command, outputs);
  }
  start_supervision({request.max_memory_bytes, request.timeout_seconds, reports ? outputs.out : ""});
  if (command == "trace") return trace_command(positional, request);
  if (command == "benchgen") return benchgen_command(positional, request, outputs.out);
  if (command == "place") return place_command(positional, request);
  if (command == "model") {
    return model_command({std::move(analyze_args.build), std::move(analyze_args.program_args), absl::GetFlag(FLAGS_sizes),
                          absl::GetFlag(FLAGS_predict), absl::GetFlag(FLAGS_extrap)},
                         request);
  }
  if (command == "analyze") return analyze(std::move(analyze_args), request, outputs);
  if (command == "demo") return demo(positional, request, outputs);
  return estimate(positional, request, outputs);
}

}  // namespace
}  // namespace commanalyzer::cli

int main(int argc, char** argv) {
  commanalyzer::cli::reexecute_with_huge_pages(argv);
  commanalyzer::cli::return_large_blocks_when_freed();
  // Whatever the exit status, the other MPI ranks of --partitioner parmetis
  // are released.
  struct LeaveDistributed {
    ~LeaveDistributed() { commanalyzer::cli::leave_distributed_partitioning(); }
  } leave;
  try {
    return commanalyzer::cli::run(argc, argv);
  } catch (...) {
    commanalyzer::cli::hold_if_stopping();  // the supervisor ends the tool and says why
    return commanalyzer::cli::report_failure();
  }
}
