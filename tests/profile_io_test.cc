#include "commanalyzer/record/profile_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <sstream>
#include <utility>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

Analyzer<>::ProfileType sample_profile() {
  Analyzer<> a;
  const testing::Array u{0x10000}, unew{0x20000};
  a.allocation(0x10000, 8 * 128);  // heap arrays (1 KiB or more: tracked)
  a.allocation(0x20000, 8 * 128);
  a.region_begin();
  testing::jacobi1d(a, u, unew, 128, 4);
  a.region_end();
  return a.take_profile();
}

std::string serialise(const Analyzer<>::ProfileType& p, const ProfileInfo& info) {
  std::ostringstream out;
  write_profile(out, p, info);
  return out.str();
}

template <class Flows>
std::vector<std::pair<ValueId, std::vector<ValueId>>> dump_flows(const Flows& flows) {
  std::vector<std::pair<ValueId, std::vector<ValueId>>> out;
  flows.for_each([&](ValueId v, std::span<const ValueId> s) { out.emplace_back(v, std::vector(s.begin(), s.end())); });
  return out;
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
  ASSERT_EQ(copy.arrays.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(copy.arrays[k].base, original.arrays[k].base);
    EXPECT_EQ(copy.arrays[k].bytes, 8u * 128);
  }
  Estimator<Analyzer<>::ProfileType> a(original);
  Estimator<LoadedProfile> b(copy);
  for (int n : {2, 4}) EXPECT_EQ(a.estimate(n).matrix, b.estimate(n).matrix);
}

// A recording window's end (Profile::recorded_iterations) survives the
// file (version 13), and a file claiming more recorded iterations than
// marked is refused.
TEST(ProfileIo, RecordedIterationsRoundTrip) {
  auto windowed = sample_profile();
  ASSERT_GE(windowed.iterations(), 2u);
  windowed.recorded_iterations = 2;
  std::istringstream in(serialise(windowed, {}));
  EXPECT_EQ(read_profile(in).recorded_iterations, 2u);
  windowed.recorded_iterations = windowed.iterations() + 1;
  std::istringstream bad(serialise(windowed, {}));
  try {
    read_profile(bad);
    ADD_FAILURE() << "read a profile with more iterations recorded than marked";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("more iterations recorded than marked"), std::string::npos) << e.what();
  }
}

// A region of `steps` 1-D Jacobi steps on 64 cells.
template <class A>
void jacobi_region(A& a, int steps) {
  const testing::Array u{0x10000}, unew{0x20000};
  a.region_begin();
  testing::jacobi1d(a, u, unew, 64, steps);
}

// The runtime keeps its flows varint-coded and hands the code over as is;
// any other flow store is coded while writing: without a set-up to
// renumber (SetUpRenumberingSurvivesTheFile) and with no iteration that
// repeats the one before (two steps), the files are identical.
TEST(ProfileIo, VarintAndFlatFlowStoresWriteTheSameFile) {
  Analyzer<> flat;
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, CompactValueStore, VarintFlowStore> varint;
  jacobi_region(flat, 2);
  jacobi_region(varint, 2);
  std::ostringstream a, b;
  write_profile(a, flat.profile(), {});
  write_profile(b, varint.profile(), {});
  EXPECT_EQ(a.str(), b.str());
  std::istringstream in(b.str());
  const auto copy = read_profile(in);
  EXPECT_EQ(dump_flows(flat.profile().flows), dump_flows(copy.flows));
}

// Iterations that repeat the one before are replays in the runtime's code
// and in the file (flow_replays.h); the profile read back gives the same
// flows as a store that coded every chain, and keeps them as replays.
TEST(ProfileIo, ReplayedIterationsSurviveTheFile) {
  Analyzer<> flat;
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, CompactValueStore, VarintFlowStore> varint;
  jacobi_region(flat, 8);
  jacobi_region(varint, 8);
  const auto& flows = varint.profile().flows;
  // The first step reads no step before it, the second is the first to;
  // steps 3 to 7 replay the second; the last is ended by no mark.
  ASSERT_EQ(flows.replays().replays.size(), 5u);
  EXPECT_EQ(flows.coded_count(), 3 * 62u);
  std::ostringstream a, b;
  write_profile(a, flat.profile(), {});
  write_profile(b, varint.profile(), {});
  std::istringstream in(b.str());
  const auto copy = read_profile(in);
  EXPECT_EQ(dump_flows(flat.profile().flows), dump_flows(copy.flows));
  EXPECT_EQ(copy.flows.coded_count(), flows.coded_count());
  EXPECT_EQ(copy.flows.flow_count(), flat.profile().flows.flow_count());
  EXPECT_EQ(copy.flows.source_count(), flat.profile().flows.source_count());

  // A replay of more chains than its iteration coded is an error.
  auto bad = varint.profile();
  bad.flows.replay(0, 1000, 0, 62, flows.replays().threshold);
  std::ostringstream bad_file;
  write_profile(bad_file, bad, {});
  std::istringstream bad_in(bad_file.str());
  EXPECT_THROW(read_profile(bad_in), ProfileError);
}

// The runtime's store keeps the set-up's renumbering pending
// (VarintFlowStore::renumber) and the file carries it: the flows read
// back are those of a store that renumbered them at once.
TEST(ProfileIo, SetUpRenumberingSurvivesTheFile) {
  Analyzer<> flat;
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, CompactValueStore, VarintFlowStore> varint;
  const testing::Array u{0x10000}, unew{0x20000}, scratch{0x40000};
  auto run = [&](auto& a) {
    for (std::uint64_t i = 0; i < 64; ++i) {  // set-up: unread temporaries, then the grid the region reads
      a.store(scratch.at(i % 8), 8, a.compute(a.load(scratch.at(8 + i % 8), 8)));
      a.store(u.at(i), 8, a.compute(a.load(scratch.at(i % 8), 8)));
    }
    a.region_begin();
    testing::jacobi1d(a, u, unew, 64, 4);
    a.region_end();
    a.finish();
  };
  run(flat);
  run(varint);
  ASSERT_FALSE(varint.profile().flows.renumbering().none());
  std::ostringstream file;
  write_profile(file, varint.profile(), {});
  std::istringstream in(file.str());
  const auto copy = read_profile(in);
  std::vector<std::pair<ValueId, std::vector<ValueId>>> x, y, z;
  flat.profile().flows.for_each([&](ValueId v, std::span<const ValueId> s) { x.emplace_back(v, std::vector(s.begin(), s.end())); });
  varint.profile().flows.for_each([&](ValueId v, std::span<const ValueId> s) { y.emplace_back(v, std::vector(s.begin(), s.end())); });
  copy.flows.for_each([&](ValueId v, std::span<const ValueId> s) { z.emplace_back(v, std::vector(s.begin(), s.end())); });
  ASSERT_FALSE(x.empty());
  EXPECT_LT(flat.profile().values.count(), 2 * 64 + 64 * 4);  // the temporaries are gone
  EXPECT_EQ(x, y);
  EXPECT_EQ(x, z);
  EXPECT_EQ(copy.values.count(), flat.profile().values.count());

  // A flow that reads a set-up value the renumbering drops is an error.
  const ValueId read_set_up = x.front().second.front();
  SetUpRenumbering wrong{read_set_up + 1, 0, RankedBits(read_set_up + 1)};
  wrong.shift = read_set_up - wrong.kept.seal();
  varint.profile().flows.renumber(std::move(wrong));
  std::ostringstream bad;
  write_profile(bad, varint.profile(), {});
  std::istringstream bad_in(bad.str());
  EXPECT_THROW(read_profile(bad_in), ProfileError);
}

// Profiles written before the varint flows (format 3) still read.
TEST(ProfileIo, ReadsFormatVersion3) {
  const auto original = sample_profile();
  std::string bytes;
  auto put = [&](const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); };
  auto put64 = [&](std::uint64_t x) { put(&x, 8); };
  auto put32 = [&](std::uint32_t x) { put(&x, 4); };
  put(kProfileMagic, 8);
  put32(3);
  put32(4);
  put64(2);
  put("v3", 2);
  const auto& values = original.values;
  put64(values.count());
  for (ValueId v = 1; v <= values.count(); ++v) {
    const auto size = static_cast<std::uint16_t>(values.size_bytes(v));
    put(&size, 2);
  }
  for (ValueId v = 1; v <= values.count(); ++v) bytes.push_back(values.is_input(v) ? 1 : 0);
  for (ValueId v = 1; v <= values.count(); ++v) put32(values.vertex(v));
  put64(original.vertex_count());
  put(original.vertex_home.data(), 8 * original.vertex_count());
  put(original.vertex_weight.data(), 4 * original.vertex_count());
  put(original.vertex_group.data(), 4 * original.vertex_count());
  put64(original.iteration_marks.size());
  put(original.iteration_marks.data(), 4 * original.iteration_marks.size());
  put64(original.flows.flow_count());
  put64(original.flows.source_count());
  original.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
    put32(v);
    put32(static_cast<std::uint32_t>(sources.size()));
    put(sources.data(), sources.size_bytes());
  });
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  put64(hash);

  std::istringstream in(bytes);
  ProfileInfo info;
  const auto copy = read_profile(in, &info);
  EXPECT_EQ(info.version, 3u);
  EXPECT_EQ(info.metadata, "v3");
  EXPECT_EQ(copy.vertex_home, original.vertex_home);
  EXPECT_EQ(copy.flows.source_count(), original.flows.source_count());
  EXPECT_TRUE(copy.arrays.empty());  // version 5 added them
  // Without arrays, ownership by value gives what it gave.
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, MetisPartitioner> a(original);
  Estimator<LoadedProfile, DensityDistanceScorer, MetisPartitioner> b(copy);
  for (int n : {2, 4}) EXPECT_EQ(a.estimate(n).matrix, b.estimate(n).matrix);
  bytes[bytes.size() - 30] ^= 0x11;
  std::istringstream corrupt(bytes);
  EXPECT_THROW(read_profile(corrupt), ProfileError);
}

// Writes and reads `original` back; every value's vertex, size and input
// flag must survive. Returns the copy.
template <class P>
auto round_trip_values(const P& original) {
  std::ostringstream out;
  write_profile(out, original, {});
  std::istringstream in(out.str());
  auto copy = read_profile(in);
  EXPECT_EQ(copy.values.count(), original.values.count());
  for (ValueId v = 1; v <= std::min(copy.values.count(), original.values.count()); ++v) {
    if (copy.values.vertex(v) != original.values.vertex(v) ||
        copy.values.size_bytes(v) != original.values.size_bytes(v) ||
        copy.values.is_input(v) != original.values.is_input(v)) {
      ADD_FAILURE() << "value " << v << " differs after the round trip";
      break;
    }
  }
  return copy;
}

// Values whose vertices jump around (not a sweep), with sizes past a byte:
// the varint value section round-trips them exactly.
TEST(ProfileIo, ValueSectionRoundTripsAnyVertexOrder) {
  std::mt19937 rng(8);
  Profile<CompactValueStore, FlatFlowStore> original;
  for (int i = 0; i < 3000; ++i) original.add_vertex(0x1000 + 8 * i, i % 3);
  for (int i = 0; i < 20000; ++i) {
    VertexId vertex = rng() % 3000;
    if (rng() % 3 == 0) vertex = static_cast<VertexId>(i % 3000);
    const std::uint32_t size = rng() % 40 == 0 ? 1000 + rng() % 70000 : 1 + rng() % 64;
    original.values.create(size, rng() % 5 == 0, vertex);
  }
  EXPECT_EQ(round_trip_values(original).vertex_group, original.vertex_group);
}

// encode_run codes a run of 64 alike vertices as encode would one by one:
// repeats (step 0), and steps of 1 that follow old vertices, pass the newest
// one, or start past it.
TEST(ProfileIo, VertexCodeRunsMatchOneByOne) {
  std::mt19937 rng(21);
  profile_io_internal::VertexCode one, run;
  std::vector<std::uint64_t> expected, got;
  VertexId newest = 0;
  for (int i = 0; i < 5000; ++i) {
    if (rng() % 4 == 0) {  // a single vertex between runs
      const VertexId x = rng() % (newest + 100);
      expected.push_back(one.encode(x));
      got.push_back(run.encode(x));
      newest = std::max(newest, x);
      continue;
    }
    const VertexId step = rng() % 3 == 0 ? 0 : 1;
    VertexId base = rng() % (newest + 200);  // behind, across or past the newest
    if (rng() % 3 == 0) base = newest + 1;
    for (VertexId k = 0; k < 64; ++k) expected.push_back(one.encode(base + step * k));
    run.encode_run(base, step, 64, [&](std::uint64_t code, std::uint64_t n) { got.insert(got.end(), n, code); });
    newest = std::max(newest, base + step * 63);
  }
  EXPECT_EQ(got, expected);
}

// A sweep's values (one size, consecutive vertices, 64 at a time) and
// others mixed in: the value section reads back exactly.
TEST(ProfileIo, ValueSectionRoundTripsSweeps) {
  std::mt19937 rng(22);
  Profile<CompactValueStore, FlatFlowStore> original;
  for (int i = 0; i < 5000; ++i) original.add_vertex(0x1000 + 8 * i);
  for (int step = 0; step < 6; ++step) {
    for (VertexId c = 0; c < 4000; ++c) original.values.create(8, false, c);
    for (int i = 0; i < 100; ++i) original.values.create(8, false, rng() % 5000);
    for (int i = 0; i < 130; ++i) original.values.create(8, false, 4321);  // one vertex over and over
  }
  for (int i = 0; i < 5000; ++i) original.values.create(rng() % 2 == 0 ? 8 : 4, rng() % 9 == 0, i % 4000);
  round_trip_values(original);
}

// A flow section longer than the writer's 1 MiB pieces, from a flat store
// (coded while writing, piece by piece) and from a varint store (written as
// is): both read back as the same chains.
TEST(ProfileIo, LongFlowSectionsReadBackFromEitherStore) {
  std::mt19937 rng(17);
  Profile<CompactValueStore, FlatFlowStore> flat;
  Profile<CompactValueStore, VarintFlowStore> varint;
  flat.add_vertex(0x1000);
  varint.add_vertex(0x1000);
  std::vector<ValueId> sources;
  for (int i = 0; i < 60000; ++i) {
    const ValueId v = flat.values.create(8, false, 0);
    varint.values.create(8, false, 0);
    if (v < 100) continue;
    if (rng() % 3 != 0 || sources.empty()) {  // else: the last chain shifted by one (a run)
      sources.clear();
      for (ValueId s = 1 + rng() % 50; s < v && sources.size() < 30; s += 1 + rng() % (v / 8 + 1)) sources.push_back(s);
    } else {
      for (ValueId& s : sources) ++s;
    }
    if (sources.empty()) continue;
    flat.flows.append(v, sources);
    varint.flows.append(v, sources);
  }
  ASSERT_GT(varint.flows.code().size(), std::size_t{1} << 20);
  std::ostringstream a, b;
  write_profile(a, flat, {});
  write_profile(b, varint, {});
  for (const std::string& bytes : {a.str(), b.str()}) {
    std::istringstream in(bytes);
    const auto copy = read_profile(in);
    std::vector<std::pair<ValueId, std::vector<ValueId>>> x, y;
    flat.flows.for_each([&](ValueId v, std::span<const ValueId> s) { x.emplace_back(v, std::vector(s.begin(), s.end())); });
    copy.flows.for_each([&](ValueId v, std::span<const ValueId> s) { y.emplace_back(v, std::vector(s.begin(), s.end())); });
    ASSERT_EQ(x, y);
  }
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

// The loop results recorded as reductions survive the file (version 9).
TEST(ProfileIo, ReductionsRoundTrip) {
  Analyzer<> a;
  const testing::Array x{0x10000};
  a.allocation(x.base, 8 * 256);
  a.region_begin();
  for (int t = 0; t < 3; ++t) {
    Label sum = kNoLabel;
    for (int i = 0; i < 256; ++i) sum = a.join(sum, a.load(x.at(i), 8));
    a.store(x.at(0), 8, a.compute(a.loop_result(sum, 3)));
    a.iteration();
  }
  a.region_end();
  const auto original = a.take_profile();
  ASSERT_EQ(original.reductions.size(), 3u);
  std::istringstream in(serialise(original, ProfileInfo{}));
  EXPECT_EQ(read_profile(in).reductions, original.reductions);
}

// A 1-D stencil whose sweep stores at site 7 and whose copy-back stores at
// site 9: the sites survive the file, and the estimate attributes the halo
// to the sweep, whose computation consumes it.
TEST(ProfileIo, SitesRoundTripAndNameTheConsumer) {
  Analyzer<> a;
  constexpr Address u = 0x10000, unew = 0x20000;
  a.allocation(u, 8 * 128);
  a.allocation(unew, 8 * 128);
  a.site(7, "stencil.c", 12, "stencil.c", 10);
  a.site(9, "stencil.h", 15, "stencil.c", 14);  // a header's statement in a loop of the .c
  a.site(7, "elsewhere.c", 1, "", 0);           // the first registration counts
  for (int i = 0; i < 128; ++i) a.store(u + 8 * i, 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < 3; ++t) {
    for (int i = 1; i < 127; ++i) {
      const Label l = a.join(a.join(a.load(u + 8 * (i - 1), 8), a.load(u + 8 * i, 8)), a.load(u + 8 * (i + 1), 8));
      a.store(unew + 8 * i, 8, l, 7);
    }
    for (int i = 1; i < 127; ++i) a.store(u + 8 * i, 8, a.compute(a.load(unew + 8 * i, 8)), 9);
    a.iteration();
  }
  a.region_end();
  const auto original = a.take_profile();
  ASSERT_EQ(original.sites.size(), 2u);
  EXPECT_EQ(original.value_sites.size(), 6u);  // a run per loop and step
  std::istringstream in(serialise(original, ProfileInfo{}));
  const auto copy = read_profile(in);
  ASSERT_EQ(copy.sites.size(), 2u);
  EXPECT_EQ(copy.find_site(7)->file, "stencil.c");
  EXPECT_EQ(copy.find_site(7)->line, 12u);
  EXPECT_EQ(copy.find_site(9)->file, "stencil.h");
  EXPECT_EQ(copy.find_site(9)->loop_file, "stencil.c");
  EXPECT_EQ(copy.find_site(9)->loop_line, 14u);
  EXPECT_EQ(copy.find_site(8), nullptr);
  ASSERT_EQ(copy.value_sites.size(), original.value_sites.size());
  for (std::size_t k = 0; k < copy.value_sites.size(); ++k) {
    EXPECT_EQ(copy.value_sites[k].first, original.value_sites[k].first);
    EXPECT_EQ(copy.value_sites[k].site, original.value_sites[k].site);
  }
  const CommEstimate e = Estimator<LoadedProfile, DensityDistanceScorer, DistributionPortfolio>(
                             copy, {}, DistributionPortfolio(true, false, false))
                             .estimate(4);
  ASSERT_GT(e.p2p_bytes, 0u);
  ASSERT_EQ(e.sites.size(), 1u);
  EXPECT_EQ(e.sites[0].line, 12u);
  EXPECT_EQ(e.sites[0].loop_file, "stencil.c");
  EXPECT_EQ(e.sites[0].loop_line, 10u);
  EXPECT_EQ(e.sites[0].p2p_bytes, e.p2p_bytes);
  EXPECT_EQ(e.sites[0].p2p_messages, e.p2p_messages);
  EXPECT_EQ(e.sites[0].partners, 2);
  EXPECT_EQ(e.sites[0].arrays, std::vector<std::uint32_t>{1});
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

// Array sites survive the file (version 10); a library's buffer (no site
// announced) is neither numbered nor named, so the program's arrays keep
// their numbers whatever the library allocated first.
TEST(ProfileIo, ArraySitesRoundTripAndNumberTheProgramsArrays) {
  Analyzer<> a;
  a.array_site(5, "/src/heat.c", 31, "u");
  a.array_site(6, "/src/heat.c", 32, "");
  a.array_site(5, "elsewhere.c", 1, "w");  // the first registration counts
  a.allocation(0x10000, 4096, 0, /*by_program=*/false);  // stdout's buffer, in printf
  a.allocation(0x20000, 8 * 256, 5);
  a.allocation(0x30000, 8 * 256, 6);
  const auto original = a.take_profile();
  std::istringstream in(serialise(original, ProfileInfo{}));
  const auto copy = read_profile(in);
  ASSERT_EQ(copy.arrays.size(), 3u);
  ASSERT_EQ(copy.array_sites.size(), 2u);
  EXPECT_FALSE(copy.arrays[0].by_program);
  EXPECT_TRUE(copy.arrays[1].by_program);
  EXPECT_EQ(copy.arrays[1].site, 5u);
  EXPECT_EQ(copy.array_numbers(), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(copy.array_label(1), "");
  EXPECT_EQ(copy.array_label(2), "u (heat.c:31)");
  EXPECT_EQ(copy.array_label(3), "heat.c:32");
}

}  // namespace
}  // namespace commanalyzer
