// What a partitioning library prints on the process's standard output,
// moved to standard error as notes. METIS prints from inside a
// multi-constraint bisection ("***Cannot bisect a graph with 0 vertices!")
// and returns a complete partition; printed where it was, the lines land
// in the middle of the report a user pipes or saves.
//
//   {
//     LibraryOutputToStderr note("METIS");  // stdout is a file from here ...
//     METIS_PartGraphKway(...);
//   }                                       // ... and its lines go to stderr
//
// Standard output is the whole process's: hold it only around a library
// call that no other thread prints during (the estimate prints its report
// after estimating).
#ifndef COMMANALYZER_LIBRARY_OUTPUT_H_
#define COMMANALYZER_LIBRARY_OUTPUT_H_

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#if defined(__unix__)
#include <unistd.h>
#endif

namespace commanalyzer {

class LibraryOutputToStderr {
 public:
  explicit LibraryOutputToStderr(std::string_view library) : library_(library) {
#if defined(__unix__)
    std::cout.flush();
    std::fflush(stdout);
    capture_ = std::tmpfile();
    if (capture_ == nullptr) return;
    saved_ = dup(STDOUT_FILENO);
    if (saved_ < 0 || dup2(fileno(capture_), STDOUT_FILENO) < 0) {  // left as it was
      restore();
      std::fclose(capture_);
      capture_ = nullptr;
    }
#endif
  }
  ~LibraryOutputToStderr() {
#if defined(__unix__)
    if (capture_ == nullptr) return;
    std::fflush(stdout);
    restore();
    std::rewind(capture_);
    std::string line;
    for (int c; (c = std::fgetc(capture_)) != EOF;) {
      if (c != '\n') {
        line.push_back(static_cast<char>(c));
        continue;
      }
      note(line);
      line.clear();
    }
    note(line);
    std::fclose(capture_);
#endif
  }
  LibraryOutputToStderr(const LibraryOutputToStderr&) = delete;
  LibraryOutputToStderr& operator=(const LibraryOutputToStderr&) = delete;

 private:
  // One line as a note, without the library's own tabs and stars.
  void note(std::string_view line) const {
    const std::size_t start = line.find_first_not_of("\t *");
    if (start == std::string_view::npos) return;
    std::fprintf(stderr, "[commanalyzer] %s: %.*s\n", library_.c_str(), static_cast<int>(line.size() - start),
                 line.data() + start);
  }
  void restore() {
#if defined(__unix__)
    if (saved_ < 0) return;
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
    saved_ = -1;
#endif
  }

  std::string library_;
  std::FILE* capture_ = nullptr;
  int saved_ = -1;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_LIBRARY_OUTPUT_H_
