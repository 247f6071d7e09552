// What can go wrong in `commanalyzer`, and the one map from each kind of
// failure to an exit status, so that the same mistake ends the same way in
// every subcommand:
//
//   0   an estimate (or the file asked for) was written
//   1   RunError, ProfileError, any other failure: the build or the program
//       failed, or a file could not be read or written
//   2   UsageError, UnsupportedError: bad input (a flag, a path, a missing
//       argument) or a program the analysis cannot handle
//   3   LimitError, std::bad_alloc: --timeout or --max-memory reached
//
//   try { return run(argc, argv); } catch (...) { return report_failure(); }
#ifndef COMMANALYZER_TOOLS_CLI_ERRORS_H_
#define COMMANALYZER_TOOLS_CLI_ERRORS_H_

#include <stdexcept>

namespace commanalyzer::cli {

// Bad input found before any work: the message names the flag or argument.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure the user can act on (a missing source, a compile error, a
// crash, a file that cannot be written): the message says what happened.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A program the analysis cannot handle (it starts threads; no main()):
// treated as bad input.
class UnsupportedError : public RunError {
 public:
  using RunError::RunError;
};

// --timeout or --max-memory reached.
class LimitError : public RunError {
 public:
  using RunError::RunError;
};

// Called in a catch block: prints the exception in flight as
// "commanalyzer: WHAT" on stderr and returns its exit status (above).
int report_failure();

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_CLI_ERRORS_H_
