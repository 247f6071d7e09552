#include "tools/cli_errors.h"

#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "commanalyzer/record/profile_io.h"

namespace commanalyzer::cli {

int report_failure() {
  std::string what;
  int status = 1;
  try {
    throw;
  } catch (const UsageError& e) {
    what = e.what(), status = 2;
  } catch (const UnsupportedError& e) {  // before RunError, its base
    what = e.what(), status = 2;
  } catch (const LimitError& e) {
    what = e.what(), status = 3;
  } catch (const RunError& e) {
    what = e.what(), status = 1;
  } catch (const ProfileError& e) {  // a missing or damaged profile: a file that cannot be read
    what = e.what(), status = 1;
  } catch (const std::bad_alloc&) {  // outside run_estimate, which names what it was doing
    what = "out of memory; try fewer or smaller --procs, or a smaller problem", status = 3;
  } catch (const std::exception& e) {  // not foreseen: say so
    what = std::string("error: ") + e.what(), status = 1;
  }
  std::cerr << "commanalyzer: " << what << "\n";
  return status;
}

}  // namespace commanalyzer::cli
