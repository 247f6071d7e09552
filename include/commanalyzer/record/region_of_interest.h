// The region of interest (annotate.h: CA_REGION_BEGIN, CA_ITERATION,
// CA_REGION_END) as the analyzer (analyzer.h) follows it: whether events
// count now, and whether an explicit region has begun. Without any region
// the whole run counts; the first explicit one discards what was recorded
// before it.
//
//   RegionOfInterest region;
//   if (region.begin()) { /* first explicit region: discard the set-up */ }
//   region.counting(); region.end();
#ifndef COMMANALYZER_RECORD_REGION_OF_INTEREST_H_
#define COMMANALYZER_RECORD_REGION_OF_INTEREST_H_

#include <cstddef>

namespace commanalyzer {

class RegionOfInterest {
 public:
  bool counting() const { return counting_; }

  // Events count from now on. True at the first explicit region: what was
  // recorded before it is to be discarded.
  bool begin() {
    const bool first = !explicit_;
    explicit_ = true;
    counting_ = true;
    return first;
  }
  void end() { counting_ = false; }
  // Whether an explicit region has begun.
  bool begun() const { return explicit_; }

  // The iteration of an explicit region under way (`marks` so far), else
  // `outside`.
  std::size_t iteration(std::size_t marks, std::size_t outside) const {
    return counting_ && explicit_ ? marks : outside;
  }

 private:
  bool counting_ = true;
  bool explicit_ = false;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_REGION_OF_INTEREST_H_
