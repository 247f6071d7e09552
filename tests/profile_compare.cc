// profile_compare A B: exit 0 if two profiles record the same run, as far as
// the estimate can tell: the same value instances (size, input, vertex),
// vertex weights, iteration marks and value-flow chains, and the same
// grouping of vertices into heap arrays (group ids may be renumbered in the
// same order). Home addresses and metadata are not compared: they depend on
// where the heap landed (address-space randomisation) and on the runtime's
// own bookkeeping. Used by tests/instrument/label_gc.sh.
#include <cstdio>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/profile_io.h"

namespace {

using namespace commanalyzer;

int compare(const char* path_a, const char* path_b) {
  const auto a = load_profile(path_a);
  const auto b = load_profile(path_b);
  auto differ = [](const char* what) {
    std::printf("profiles differ: %s\n", what);
    return 1;
  };
  if (a.values.count() != b.values.count()) return differ("value count");
  for (ValueId v = 1; v <= a.values.count(); ++v) {
    if (a.values.size_bytes(v) != b.values.size_bytes(v) || a.values.is_input(v) != b.values.is_input(v) ||
        a.values.vertex(v) != b.values.vertex(v)) {
      return differ("value instances");
    }
  }
  if (!(a.vertex_weight == b.vertex_weight)) return differ("vertex weights");
  if (a.iteration_marks != b.iteration_marks) return differ("iteration marks");
  if (a.vertex_group.size() != b.vertex_group.size()) return differ("vertex count");
  std::map<std::uint32_t, std::uint32_t> groups;
  for (std::size_t x = 0; x < a.vertex_group.size(); ++x) {
    const auto [it, added] = groups.emplace(a.vertex_group[x], b.vertex_group[x]);
    if (it->second != b.vertex_group[x] || (a.vertex_group[x] == 0) != (b.vertex_group[x] == 0)) {
      return differ("heap-array groups");
    }
  }
  std::uint32_t previous = 0;
  for (const auto& [from, to] : groups) {
    if (from != 0 && to <= previous) return differ("heap-array group order");
    previous = to;
  }
  std::vector<std::pair<ValueId, std::vector<ValueId>>> fa, fb;
  a.flows.for_each([&](ValueId v, std::span<const ValueId> s) { fa.emplace_back(v, std::vector(s.begin(), s.end())); });
  b.flows.for_each([&](ValueId v, std::span<const ValueId> s) { fb.emplace_back(v, std::vector(s.begin(), s.end())); });
  if (fa != fb) return differ("value-flow chains");
  std::printf("same: %zu values, %zu vertices, %zu flows, %zu sources\n", a.values.count(), a.vertex_count(),
              fa.size(), a.flows.source_count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: profile_compare A B\n");
    return 2;
  }
  try {
    return compare(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "profile_compare: %s\n", e.what());
    return 2;
  }
}
