#include "commanalyzer/profile_io.h"

#include <gtest/gtest.h>

#include <span>
#include <sstream>
#include <utility>
#include <vector>

#include "commanalyzer/analyzer.h"
#include "commanalyzer/estimate.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

Analyzer<>::ProfileType sample_profile() {
  Analyzer<> a;
  const testing::Array u{0x10000}, unew{0x20000};
  a.allocation(0x20000, 8 * 64);  // unew is a heap array
  a.region_begin();
  testing::jacobi1d(a, u, unew, 64, 4);
  a.region_end();
  return a.take_profile();
}

std::string serialise(const Analyzer<>::ProfileType& p, const ProfileInfo& info) {
  std::ostringstream out;
  write_profile(out, p, info);
  return out.str();
}

TEST(ProfileIo, RoundTripKeepsEverythingTheEstimateReads) {
  const auto original = sample_profile();
  ProfileInfo info;
  info.word_bytes = 4;
  info.metadata = "loads=1";
  std::istringstream in(serialise(original, info));
  ProfileInfo read_info;
  const auto copy = read_profile(in, &read_info);
  EXPECT_EQ(read_info.metadata, "loads=1");
  EXPECT_EQ(read_info.word_bytes, 4u);
  EXPECT_EQ(copy.values.count(), original.values.count());
  EXPECT_EQ(copy.vertex_home, original.vertex_home);
  EXPECT_EQ(copy.vertex_group, original.vertex_group);
  EXPECT_EQ(copy.iteration_marks, original.iteration_marks);
  EXPECT_EQ(copy.flows.source_count(), original.flows.source_count());
  Estimator<Analyzer<>::ProfileType> a(original), b(copy);
  for (int n : {2, 4}) EXPECT_EQ(a.estimate(n).matrix, b.estimate(n).matrix);
}

TEST(ProfileIo, RejectsWhatIsNotAValidProfile) {
  const std::string good = serialise(sample_profile(), {});
  auto error_of = [](std::string bytes) {
    std::istringstream in(bytes);
    try {
      read_profile(in);
    } catch (const ProfileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("hello").find("not a CommAnalyzer profile"), std::string::npos);
  EXPECT_NE(error_of("XXXXXXXXXXXXXXXXXXXX").find("bad magic"), std::string::npos);
  std::string other_version = good;
  other_version[8] = 99;
  EXPECT_NE(error_of(other_version).find("version 99"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() / 2)).find("truncated"), std::string::npos);
  std::string flipped = good;
  flipped[good.size() - 20] ^= 0x5a;
  EXPECT_NE(error_of(flipped).find("corrupt"), std::string::npos);
  EXPECT_EQ(error_of(good), "no error");
}

TEST(Allocations, VerticesRememberTheirArray) {
  Analyzer<> a;
  a.allocation(0x10000, 4096);
  a.allocation(0x20000, 4096);
  a.allocation(0x30000, 16);  // too small to track
  a.store(0x10008, 8, kComputedBit);
  a.store(0x20ff8, 8, kComputedBit);
  a.store(0x30000, 8, kComputedBit);
  a.store(0x40000, 8, kComputedBit);
  const auto& p = a.profile();
  auto group = [&](Address addr) { return p.vertex_group[p.values.vertex(a.value_at(addr))]; };
  EXPECT_NE(group(0x10008), 0u);
  EXPECT_NE(group(0x20ff8), 0u);
  EXPECT_NE(group(0x10008), group(0x20ff8));
  EXPECT_EQ(group(0x30000), 0u);
  EXPECT_EQ(group(0x40000), 0u);
  a.release(0x10000);
  a.store(0x10010, 8, kComputedBit);
  EXPECT_EQ(group(0x10010), 0u);
}

}  // namespace
}  // namespace commanalyzer
