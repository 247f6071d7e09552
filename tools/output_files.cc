#include "tools/output_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "tools/cli_errors.h"
#include "tools/supervisor.h"

namespace commanalyzer::cli {

namespace fs = std::filesystem;

namespace {

// Not a file one can replace (a device such as /dev/stdout or /dev/null, a
// pipe): written in place, never renamed over.
bool is_special(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  return !ec && fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

}  // namespace

void write_atomically(const fs::path& path, const std::function<void(std::ostream&)>& body) {
  const bool in_place = is_special(path);
  const fs::path target = in_place ? path : fs::path(path.string() + ".partial");
  try {
    {
      std::ofstream out(target);
      if (!out) throw RunError(absl::StrCat("cannot write ", target.string(), ": ", std::strerror(errno)));
      body(out);
      out.flush();
      if (!out) throw RunError(absl::StrCat("error while writing ", target.string(), ": ", std::strerror(errno)));
    }
    if (in_place) return;
    hold_if_stopping();  // a limit stopped the run: this result is not one
    fs::rename(target, path);
  } catch (...) {
    std::error_code ignored;
    if (!in_place) fs::remove(target, ignored);
    throw;
  }
}

namespace {

// Creates and removes a file in `dir`: the honest test of "can write here"
// (access(2) says yes to root on a read-only file system).
bool can_write_in(const fs::path& dir) {
  const fs::path probe = dir / absl::StrCat(".commanalyzer-probe-", getpid());
  std::ofstream out(probe);
  if (!out) return false;
  out.close();
  std::error_code ignored;
  fs::remove(probe, ignored);
  return true;
}

std::vector<fs::path>& input_files() {
  static std::vector<fs::path> paths;
  return paths;
}

}  // namespace

void note_input_files(std::vector<fs::path> paths) { input_files() = std::move(paths); }

void check_output_file(const std::string& flag, const fs::path& path) {
  std::error_code ec;
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (fs::is_directory(path, ec)) {
    throw UsageError(absl::StrCat(flag, ": '", path.string(), "' is a folder; give a file name"));
  }
  for (const fs::path& input : input_files()) {
    if (fs::equivalent(path, input, ec)) {
      throw UsageError(absl::StrCat(flag, ": '", path.string(), "' is an input of this run; give another file"));
    }
  }
  if (is_special(path)) {
    if (access(path.c_str(), W_OK) != 0) throw UsageError(absl::StrCat(flag, ": cannot write '", path.string(), "'"));
    return;
  }
  if (!fs::is_directory(folder, ec)) {
    throw UsageError(absl::StrCat(flag, ": folder '", folder.string(), "' does not exist"));
  }
  if (!can_write_in(folder)) throw UsageError(absl::StrCat(flag, ": cannot write in folder '", folder.string(), "'"));
}

void check_output_folder(const std::string& flag, const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw UsageError(absl::StrCat(flag, ": '", dir.string(), "' exists and is not a directory"));
  }
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(absl::StrCat(flag, ": cannot create folder '", dir.string(), "': ", ec.message()));
  if (!can_write_in(dir)) throw UsageError(absl::StrCat(flag, ": cannot write in folder '", dir.string(), "'"));
  // One run per folder: two builds of one program file, or two profiles
  // written at once, would break each other. The folder itself is locked
  // (no file is left behind) as long as this process lives: its
  // descriptor is never closed.
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw UsageError(absl::StrCat(flag, ": cannot write in folder '", dir.string(), "'"));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    throw UsageError(absl::StrCat(flag, ": another commanalyzer is writing in '", dir.string(),
                                  "'; give each run its own folder"));
  }
}

}  // namespace commanalyzer::cli
