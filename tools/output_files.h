// Every file the tool writes goes through write_atomically, and every
// output path a flag names is checked before any work, so that a long run
// neither fails at its last step nor leaves a file that looks complete:
//
//   check_output_file("--csv", csv);                 // with the flags
//   ...                                              // the estimate
//   write_atomically(csv, [&](std::ostream& o) { write_trace_csv(o, trace); });
#ifndef COMMANALYZER_TOOLS_OUTPUT_FILES_H_
#define COMMANALYZER_TOOLS_OUTPUT_FILES_H_

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace commanalyzer::cli {

// Writes PATH.partial with `body`, then renames it to PATH. On any failure
// (a RunError when the file cannot be opened or written, or whatever
// `body` throws) PATH.partial is removed and PATH left as it was.
void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body);

// The files this run reads (sources, a profile, a distribution map):
// check_output_file refuses to name them.
void note_input_files(std::vector<std::filesystem::path> paths);

// `path`, given with `flag`, can be written: its folder exists and takes a
// file, and it is neither a folder nor one of the run's input files.
// Throws UsageError naming the flag.
void check_output_file(const std::string& flag, const std::filesystem::path& path);

// `dir`, given with `flag`, is a folder the tool can write in; it is
// created if missing. Throws UsageError naming the flag.
void check_output_folder(const std::string& flag, const std::filesystem::path& dir);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_OUTPUT_FILES_H_
