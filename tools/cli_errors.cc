#include "tools/cli_errors.h"

#include <exception>
#include <iostream>
#include <new>

#include "commanalyzer/profile_io.h"

namespace commanalyzer::cli {

int report_failure() {
  try {
    throw;
  } catch (const UsageError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 2;
  } catch (const UnsupportedError& e) {  // before RunError, its base
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 2;
  } catch (const LimitError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 3;
  } catch (const RunError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 1;
  } catch (const ProfileError& e) {  // a missing or damaged profile: a file that cannot be read
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {  // outside the estimate, which names its phase (estimate_run.h)
    std::cerr << "commanalyzer: out of memory; try fewer or smaller --procs, or a smaller problem\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "commanalyzer: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace commanalyzer::cli
