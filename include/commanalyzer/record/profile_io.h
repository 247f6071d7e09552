// Profile files: a run's Profile (profile.h) on disk, so `commanalyzer
// estimate` can re-estimate for new process counts without re-running the
// program. Little-endian binary, versioned, with a checksum:
//
//   "CAPROFIL" u32 version u32 word_bytes
//   u64 length + bytes: free-form metadata (program, arguments)
//   u64 values;
//     version 4: records varint(2 * (2 * size + input) + more),
//                varint(vertex code) (profile_io_internal::VertexCode),
//                and if more = 1 varint(k): k more values alike (same
//                size, input flag and vertex code)
//     version 3: u16 size[values] u8 input[values] u32 vertex[values]
//   u64 vertices; u64 home[] u32 weight[] u32 group[]
//   u64 marks;    u32 mark[]
//   version 13: u64 recorded iterations (Profile::recorded_iterations)
//   version 5: u64 arrays; per array u64 base u64 bytes u64 flags
//              (bit 0: freed; version 6, bit 1: indexed indirectly;
//              bit 2: scratch, allocated and freed in one iteration;
//              version 8, bit 3: copied into in the region)
//              u64 moves; per move u64 from u64 to u64 from_offset
//              u64 to_offset u64 bytes
//   version 7: u64 sites; per site u32 id u32 line u32 loop_line
//              u64 length + bytes: file
//              (version 8: then u64 length + bytes: loop file)
//              u64 site runs; per run u32 first value u32 site
//   version 9: u64 reductions; per reduction u32 vertex (ascending) u32 site
//              (Profile::reductions)
//   version 10: u64 array sites; per site u32 id u32 line, u64 length +
//              bytes: file, u64 length + bytes: variable name; then per
//              array u32 site (Profile::array_sites, Array::site); array
//              flags bit 4: a library's own buffer (not by_program), bit 5:
//              a table of rows
//   u64 flows; u64 sources; then
//     version 11: u64 first region value F (0: none); if F is not 0,
//                u64 kept K, u64 length + K varints: the set-up values
//                (below F) the region reads, each minus the one before.
//                The chains then hold ids as recorded: a kept set-up id
//                reads as 1 + the kept ones below it, any other id moves
//                down by F - 1 - K (unread_set_up.h)
//     version 12 (flows and sources count the coded chains only): u64
//                threshold T (0: no replays); u64 refs, per ref u64 the
//                index of the coded chain it starts at; u64 replays, per
//                replay u64 at (the coded chain it comes before), u32 ref,
//                u64 chains, u64 sources, u32 shift: the chains coded from
//                that ref on, each value and each source >= T plus shift
//                (flow_replays.h; T and shift as recorded)
//     version 4: u64 length + the chains as VarintFlowStore codes them
//                (compressor.h: varint value delta, varint count, varint
//                source gaps going backwards from the value)
//     version 3: per flow: u32 value u32 count u32 source[count]
//   u64 checksum of everything above
//     version 4: FNV-1a over the little-endian 64-bit words of the stream
//                (the last one zero-padded), then over the byte length
//     version 3: FNV-1a over the bytes
// Writers write version 13; readers read 3 to 13 (before version 10 arrays
// have no sites and all are the program's; older profiles have no
// sites: the estimate is the same, its "where" is empty; a version 7 site's
// loop is taken to be in the statement's file; before version 9 no loop
// result is known to be a reduction, and the singleton scorer alone finds
// them).
#ifndef COMMANALYZER_PROFILE_IO_H_
#define COMMANALYZER_PROFILE_IO_H_

#include <cerrno>
#include <cstdint>
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/record/compressor.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/value_store.h"

namespace commanalyzer {

inline constexpr char kProfileMagic[8] = {'C', 'A', 'P', 'R', 'O', 'F', 'I', 'L'};
inline constexpr std::uint32_t kProfileVersion = 13;
inline constexpr std::uint32_t kOldestReadableProfileVersion = 3;

class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a profile file holds besides the Profile itself.
struct ProfileInfo {
  std::uint32_t version = kProfileVersion;
  std::uint32_t word_bytes = 0;
  std::string metadata;
};

namespace profile_io_internal {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

// The checksum of a stream fed in arbitrary pieces: FNV-1a over 64-bit
// little-endian words (version 4; a byte-at-a-time FNV chain costs more
// than the write itself on multi-GB profiles) or over bytes (version 3).
class Checksum {
 public:
  explicit Checksum(bool words) : words_(words) {}

  void update(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    length_ += n;
    if (!words_) {
      for (std::size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * kFnvPrime;
      return;
    }
    if (carry_n_ != 0) {
      const std::size_t take = std::min<std::size_t>(8 - carry_n_, n);
      std::memcpy(carry_ + carry_n_, p, take);
      carry_n_ += take;
      p += take;
      n -= take;
      if (carry_n_ < 8) return;
      word(carry_);
      carry_n_ = 0;
    }
    for (; n >= 8; n -= 8, p += 8) word(p);
    std::memcpy(carry_, p, n);
    carry_n_ = n;
  }

  std::uint64_t value() const {
    if (!words_) return hash_;
    std::uint64_t h = hash_;
    if (carry_n_ != 0) {
      unsigned char last[8] = {};
      std::memcpy(last, carry_, carry_n_);
      h = (h ^ load(last)) * kFnvPrime;
    }
    return (h ^ length_) * kFnvPrime;
  }

 private:
  static std::uint64_t load(const unsigned char* p) {
    std::uint64_t w = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&w, p, sizeof w);  // one load (GCC keeps the byte loop below as eight)
    } else {
      for (int i = 7; i >= 0; --i) w = (w << 8) | p[i];  // little-endian on any host
    }
    return w;
  }
  void word(const unsigned char* p) { hash_ = (hash_ ^ load(p)) * kFnvPrime; }

  bool words_;
  std::uint64_t hash_ = kFnvOffset;
  std::uint64_t length_ = 0;
  unsigned char carry_[8] = {};
  std::size_t carry_n_ = 0;
};

// Buffered: the stream sees few large writes, not one per field.
class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out), checksum_(/*words=*/true) { buffer_.reserve(kBuffer); }
  template <class T>
  void put(const T& x) {
    bytes(&x, sizeof(T));
  }
  template <class Array>
  void array(const Array& xs, std::size_t from = 0) {
    bytes(xs.data() + from, (xs.size() - from) * sizeof(xs[0]));
  }
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const char*>(data);
    if (buffer_.size() + n > kBuffer) {
      flush();
      if (n >= kBuffer) {  // large arrays go straight through
        checksum_.update(p, n);
        out_.write(p, static_cast<std::streamsize>(n));
        return;
      }
    }
    buffer_.insert(buffer_.end(), p, p + n);
  }
  void flush() {
    checksum_.update(buffer_.data(), buffer_.size());
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }
  std::uint64_t hash() {
    flush();
    return checksum_.value();
  }

 private:
  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::ostream& out_;
  Checksum checksum_;
  std::vector<char> buffer_;
};

class Reader {
 public:
  explicit Reader(std::istream& in) : in_(in) {}
  // The checksum rule of the file's version: called once, right after the
  // version field; what was read before it is hashed by that rule too.
  void set_version(std::uint32_t version) {
    consume();
    checksum_ = Checksum(version >= 4);
    checksum_.update(early_.data(), early_.size());
    versioned_ = true;
  }
  template <class T>
  T get() {
    T x{};
    bytes(&x, sizeof(T));
    return x;
  }
  template <class T, class Array = std::vector<T>>
  Array array(std::uint64_t n) {
    if (n > (std::uint64_t{1} << 40) / sizeof(T)) throw ProfileError("corrupt profile: impossible array length");
    Array xs(n, T{});
    bytes(xs.data(), n * sizeof(T));
    return xs;
  }
  void bytes(void* data, std::size_t n) {
    auto* out = static_cast<char*>(data);
    while (n != 0) {
      if (pos_ == end_) refill();
      const std::size_t take = std::min(n, end_ - pos_);
      std::memcpy(out, buffer_.data() + pos_, take);
      pos_ += take;
      out += take;
      n -= take;
    }
  }
  // A varint of at most `budget` more bytes (the rest of its section).
  std::uint64_t varint(std::uint64_t& budget) {
    std::uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (budget == 0 || shift > 63) throw ProfileError("corrupt profile: bad value flow");
      --budget;
      if (pos_ == end_) refill();
      const auto byte = static_cast<unsigned char>(buffer_[pos_++]);
      x |= std::uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return x;
    }
  }
  // The checksum of everything consumed so far.
  std::uint64_t hash() {
    consume();
    return checksum_.value();
  }

 private:
  void consume() {  // hashes what was read since the last call
    const char* p = buffer_.data() + hashed_;
    const std::size_t n = pos_ - hashed_;
    if (versioned_) {
      checksum_.update(p, n);
    } else {
      early_.insert(early_.end(), p, p + n);
    }
    hashed_ = pos_;
  }
  void refill() {
    consume();
    buffer_.resize(kBuffer);
    in_.read(buffer_.data(), static_cast<std::streamsize>(kBuffer));
    end_ = static_cast<std::size_t>(in_.gcount());
    pos_ = hashed_ = 0;
    if (end_ == 0) throw ProfileError("truncated profile (unexpected end of file)");
  }

  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::istream& in_;
  Checksum checksum_{true};
  bool versioned_ = false;
  std::vector<char> early_;  // the header, until the version is known
  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0, hashed_ = 0;
};

// The vertex of each value, in creation order: 0 = a new vertex (one more
// than any named before: vertices are numbered as their first value is
// made); else 1 + zigzag(vertex - (previous value's vertex + 1)), small for
// the neighbouring cells of a sweep coalesced into neighbouring vertices.
class VertexCode {
 public:
  std::uint64_t encode(VertexId vertex) {
    const std::int64_t x = vertex;
    std::uint64_t code = 0;
    if (x != newest_ + 1) {
      const std::int64_t d = x - (previous_ + 1);
      code = 1 + ((static_cast<std::uint64_t>(d) << 1) ^ static_cast<std::uint64_t>(d >> 63));
    }
    newest_ = std::max(newest_, x);
    previous_ = x;
    return code;
  }
  // encode() of base + step * k for k = 0 .. n - 1 (step 0 or 1, n >= 1,
  // no wrap past 2^32), as segments: fn(code, count) in order, in O(1).
  // After the first: step 0 repeats the previous vertex (code 2, zigzag of
  // -1); step 1 follows it (code 1) until it passes the newest vertex,
  // then each is the newest plus one (code 0).
  template <class Fn>
  void encode_run(VertexId base, VertexId step, std::uint64_t n, Fn&& fn) {
    fn(encode(base), std::uint64_t{1});
    if (n == 1) return;
    const std::int64_t x0 = base;
    if (step == 0) {
      fn(std::uint64_t{2}, n - 1);
      return;
    }
    const std::int64_t last = x0 + static_cast<std::int64_t>(n) - 1;
    const std::uint64_t follow = static_cast<std::uint64_t>(std::min<std::int64_t>(newest_ - x0, last - x0));
    if (follow != 0) fn(std::uint64_t{1}, follow);
    if (follow != n - 1) fn(std::uint64_t{0}, n - 1 - follow);
    newest_ = std::max(newest_, last);
    previous_ = last;
  }
  bool decode(std::uint64_t code, VertexId& vertex) {
    std::int64_t x = newest_ + 1;
    if (code != 0) {
      const std::uint64_t z = code - 1;
      const auto d = static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
      x = previous_ + 1 + d;
    }
    if (x < 0 || x > std::int64_t{0xffffffff}) return false;
    vertex = static_cast<VertexId>(x);
    newest_ = std::max(newest_, x);
    previous_ = x;
    return true;
  }

 private:
  std::int64_t newest_ = -1;
  std::int64_t previous_ = -1;
};

// Flow stores that keep exactly the version-4 coding hand it over as is,
// with the renumbering of its ids (VarintFlowStore::renumber).
template <class Flows>
concept HasVarintCode = requires(const Flows& flows) {
  { flows.code() } -> std::convertible_to<std::span<const std::uint8_t>>;
  { flows.renumbering() } -> std::convertible_to<const SetUpRenumbering&>;
  { flows.replays() } -> std::convertible_to<const FlowReplays&>;
  { flows.coded_count() } -> std::convertible_to<std::size_t>;
};

}  // namespace profile_io_internal

namespace profile_io_internal {

// The values in runs of alike ones (size, input, vertex code), 64 at a
// time where a sweep made them alike.
template <class Liveness>
void write_values(Writer& w, const BasicCompactValueStore<Liveness>& values) {
  w.put<std::uint64_t>(values.count());
  {
    std::vector<std::uint8_t> chunk(std::size_t{1} << 20);
    std::uint8_t* out = chunk.data();
    profile_io_internal::VertexCode vertex_code;
    std::uint64_t size_input = 0, code = 0, more = 0;  // the record being gathered
    auto emit = [&] {
      if (out + 40 > chunk.data() + chunk.size()) {
        w.bytes(chunk.data(), static_cast<std::size_t>(out - chunk.data()));
        out = chunk.data();
      }
      out = flow_code::put(out, 2 * size_input + (more != 0 ? 1 : 0));
      out = flow_code::put(out, code);
      if (more != 0) out = flow_code::put(out, more);
    };
    // `count` values alike (size and input si, vertex code vc) extend the
    // record being gathered or start one.
    bool started = false;
    auto add = [&](std::uint64_t si, std::uint64_t vc, std::uint64_t count) {
      if (started && si == size_input && vc == code) {
        more += count;
        return;
      }
      if (started) emit();
      started = true;
      size_input = si;
      code = vc;
      more = count - 1;
    };
    const std::size_t count = values.count();
    for (std::size_t v = 1; v <= count;) {
      // 64 alike values at once (a sweep's), else one by one.
      std::uint32_t size;
      bool input;
      VertexId base, step;
      const bool whole_block = v % 64 == 0 && count - v >= 63;
      if (whole_block && values.alike64(static_cast<ValueId>(v), size, input, base, step) &&
          base <= ~VertexId{0} - 63) {
        const std::uint64_t si = 2 * std::uint64_t{size} + (input ? 1 : 0);
        vertex_code.encode_run(base, step, 64, [&](std::uint64_t vc, std::uint64_t n) { add(si, vc, n); });
        v += 64;
        continue;
      }
      // 64 of one size in other vertices (a stencil point's updates, one
      // vertex, then the next point's): their vertices read at once.
      VertexId vertices[64];
      if (whole_block && values.same_size64(static_cast<ValueId>(v), size, input, vertices)) {
        const std::uint64_t si = 2 * std::uint64_t{size} + (input ? 1 : 0);
        for (std::size_t k = 0; k < 64;) {
          // A vertex repeated is a step-0 run: coded at once.
          std::size_t same = 1;
          while (k + same < 64 && vertices[k + same] == vertices[k]) ++same;
          vertex_code.encode_run(vertices[k], 0, same, [&](std::uint64_t vc, std::uint64_t n) { add(si, vc, n); });
          k += same;
        }
        v += 64;
        continue;
      }
      const auto id = static_cast<ValueId>(v);
      add(2 * std::uint64_t{values.size_bytes(id)} + (values.is_input(id) ? 1 : 0),
          vertex_code.encode(values.vertex(id)), 1);
      ++v;
    }
    if (started) emit();
    w.bytes(chunk.data(), static_cast<std::size_t>(out - chunk.data()));
  }

}

// The vertices' columns, iteration marks, arrays, moves, sites,
// reductions and array sites.
template <class Profile>
void write_tables(Writer& w, const Profile& profile) {
  w.put<std::uint64_t>(profile.vertex_count());
  w.array(profile.vertex_home);
  w.array(profile.vertex_weight);
  w.array(profile.vertex_group);

  w.put<std::uint64_t>(profile.iteration_marks.size());
  w.array(profile.iteration_marks);
  w.put<std::uint64_t>(profile.recorded_iterations);
  w.put<std::uint64_t>(profile.arrays.size());
  for (const auto& a : profile.arrays) {
    w.put<std::uint64_t>(a.base);
    w.put<std::uint64_t>(a.bytes);
    w.put<std::uint64_t>((a.freed ? 1 : 0) | (a.indexed_indirectly ? 2 : 0) | (a.scratch ? 4 : 0) | (a.copied_into ? 8 : 0) |
                           (a.by_program ? 0 : 16) | (a.row_table ? 32 : 0));
  }
  w.put<std::uint64_t>(profile.moves.size());
  for (const auto& m : profile.moves) {
    for (std::uint64_t x : {std::uint64_t{m.from}, std::uint64_t{m.to}, m.from_offset, m.to_offset, m.bytes}) {
      w.put<std::uint64_t>(x);
    }
  }
  w.put<std::uint64_t>(profile.sites.size());
  for (const auto& site : profile.sites) {
    w.put<std::uint32_t>(site.id);
    w.put<std::uint32_t>(site.line);
    w.put<std::uint32_t>(site.loop_line);
    for (const std::string* name : {&site.file, &site.loop_file}) {
      w.put<std::uint64_t>(name->size());
      w.bytes(name->data(), name->size());
    }
  }
  w.put<std::uint64_t>(profile.value_sites.size());
  // A run in memory is its two u32 fields in the file's order: one write
  // (a call per field cost more than the bytes: LULESH's and the PRK
  // stencil's runs number millions).
  using SiteRun = typename decltype(profile.value_sites)::value_type;
  if constexpr (std::endian::native == std::endian::little && sizeof(SiteRun) == 8 &&
                offsetof(SiteRun, first) == 0 && offsetof(SiteRun, site) == 4) {
    w.array(profile.value_sites);
  } else {
    for (const auto& run : profile.value_sites) {
      w.put<std::uint32_t>(run.first);
      w.put<std::uint32_t>(run.site);
    }
  }
  w.put<std::uint64_t>(profile.reductions.size());
  for (const auto& reduction : profile.reductions) {
    w.put<std::uint32_t>(reduction.vertex);
    w.put<std::uint32_t>(reduction.site);
  }
  w.put<std::uint64_t>(profile.array_sites.size());
  for (const auto& site : profile.array_sites) {
    w.put<std::uint32_t>(site.id);
    w.put<std::uint32_t>(site.line);
    for (const std::string* name : {&site.file, &site.name}) {
      w.put<std::uint64_t>(name->size());
      w.bytes(name->data(), name->size());
    }
  }
  for (const auto& a : profile.arrays) w.put<std::uint32_t>(a.site);

}

// The renumbering of the chains' ids (version 11): the first region value,
// and if not 0 the kept set-up values, as varint gaps.
inline void write_renumbering(Writer& w, const SetUpRenumbering& renumbering) {
  w.put<std::uint64_t>(renumbering.first);
  if (renumbering.none()) return;
  std::vector<std::uint8_t> gaps;
  std::uint64_t kept = 0, before = 0;
  renumbering.kept.for_each([&](std::uint64_t id) {
    std::uint8_t varint[10];
    gaps.insert(gaps.end(), varint, flow_code::put(varint, id - before));
    before = id;
    ++kept;
  });
  w.put<std::uint64_t>(kept);
  w.put<std::uint64_t>(gaps.size());
  w.bytes(gaps.data(), gaps.size());
}

// The value flows as varint chains (VarintFlowStore's coding), after
// their renumbering; the code's length first.
template <class Flows>
void write_flows(Writer& w, const Flows& flows) {
  if constexpr (profile_io_internal::HasVarintCode<Flows>) {
    if constexpr (requires { flows.settled(); }) {
      if (!flows.settled()) {  // an iteration under way, not all coded yet (Analyzer::finish settles it)
        Flows settled = flows;
        settled.settle();
        write_flows(w, settled);
        return;
      }
    }
    const FlowReplays& replays = flows.replays();
    std::uint64_t replayed_sources = 0;
    for (const FlowReplay& r : replays.replays) replayed_sources += r.sources;
    w.put<std::uint64_t>(flows.coded_count());
    w.put<std::uint64_t>(flows.source_count() - replayed_sources);
    write_renumbering(w, flows.renumbering());
    w.put<std::uint64_t>(replays.empty() ? 0 : replays.threshold);
    w.put<std::uint64_t>(replays.empty() ? 0 : replays.refs.size());
    for (std::size_t k = 0; !replays.empty() && k < replays.refs.size(); ++k) w.put<std::uint64_t>(replays.refs[k].index);
    w.put<std::uint64_t>(replays.replays.size());
    for (const FlowReplay& r : replays.replays) {
      w.put<std::uint64_t>(r.at);
      w.put<std::uint32_t>(r.ref);
      w.put<std::uint64_t>(r.chains);
      w.put<std::uint64_t>(r.sources);
      w.put<std::uint32_t>(r.shift);
    }
    const std::span<const std::uint8_t> code = flows.code();
    w.put<std::uint64_t>(code.size());
    w.bytes(code.data(), code.size());
  } else {
    // The same coding, produced here chunk by chunk: its length first.
    auto each_chunk = [&](auto&& emit) {
      VarintFlowStore chunk;
      flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
        chunk.append(v, sources);
        if (chunk.code().size() >= (std::size_t{1} << 20)) {
          emit(chunk.code());
          chunk.restart();
        }
      });
      emit(chunk.code());
    };
    w.put<std::uint64_t>(flows.flow_count());
    w.put<std::uint64_t>(flows.source_count());
    write_renumbering(w, {});  // the ids are final
    for (int table = 0; table < 3; ++table) w.put<std::uint64_t>(0);  // no replays
    std::uint64_t length = 0;
    each_chunk([&](std::span<const std::uint8_t> code) { length += code.size(); });
    w.put<std::uint64_t>(length);
    each_chunk([&](std::span<const std::uint8_t> code) { w.bytes(code.data(), code.size()); });
  }
}

}  // namespace profile_io_internal

template <class Liveness, class Flows>
void write_profile(std::ostream& out, const Profile<BasicCompactValueStore<Liveness>, Flows>& profile,
                   const ProfileInfo& info) {
  profile_io_internal::Writer w(out);
  w.bytes(kProfileMagic, sizeof kProfileMagic);
  w.put(kProfileVersion);
  w.put(info.word_bytes);
  w.put<std::uint64_t>(info.metadata.size());
  w.bytes(info.metadata.data(), info.metadata.size());
  profile_io_internal::write_values(w, profile.values);
  profile_io_internal::write_tables(w, profile);
  profile_io_internal::write_flows(w, profile.flows);
  const std::uint64_t checksum = w.hash();
  w.put(checksum);
  w.flush();
  if (!out) throw ProfileError("error while writing the profile");
}

// What read_profile gives: the flows kept coded, as the runtime wrote them
// (flat arrays of ids took 0.8 GB more for Heat2D 1024^2 x 20, whose whole
// profile file is 64 MB).
using LoadedProfile = Profile<CompactValueStore, VarintFlowStore>;

namespace profile_io_internal {

// A length-prefixed text of at most 4096 bytes (`what` names it in the
// error).
inline void read_text(Reader& r, std::string& out, const char* what) {
  const auto length = r.get<std::uint64_t>();
  if (length > 4096) throw ProfileError(std::string("corrupt profile: ") + what + " too long");
  out.resize(length);
  r.bytes(out.data(), length);
}

// Magic, a version this build reads, word size and metadata.
inline ProfileInfo read_header(Reader& r) {
  char magic[sizeof kProfileMagic];
  try {
    r.bytes(magic, sizeof magic);
  } catch (const ProfileError&) {
    throw ProfileError("not a CommAnalyzer profile (file too short)");
  }
  if (std::memcmp(magic, kProfileMagic, sizeof magic) != 0) throw ProfileError("not a CommAnalyzer profile (bad magic)");
  ProfileInfo meta;
  meta.version = r.get<std::uint32_t>();
  if (meta.version < kOldestReadableProfileVersion || meta.version > kProfileVersion) {
    throw ProfileError("profile format version " + std::to_string(meta.version) + ", this build reads versions " +
                       std::to_string(kOldestReadableProfileVersion) + " to " + std::to_string(kProfileVersion) +
                       "; re-run `commanalyzer analyze`");
  }
  meta.word_bytes = r.get<std::uint32_t>();
  r.set_version(meta.version);
  const auto meta_len = r.get<std::uint64_t>();
  if (meta_len > (1u << 20)) throw ProfileError("corrupt profile: metadata too long");
  meta.metadata.resize(meta_len);
  r.bytes(meta.metadata.data(), meta_len);
  return meta;
}

// The values (in runs from version 4), then the vertices' columns and the
// iteration marks.
inline void read_values(Reader& r, std::uint32_t version, std::uint64_t value_count, LoadedProfile& profile) {
  std::uint64_t vertex_count = 0;
  if (version >= 4) {
    std::uint64_t unbounded = ~std::uint64_t{0};
    VertexCode vertex_code;
    std::uint64_t vertex_end = 0;  // 1 + the largest vertex named
    for (std::uint64_t i = 0; i < value_count;) {
      const std::uint64_t token = r.varint(unbounded);
      const std::uint64_t size_input = token >> 1;
      const std::uint64_t code = r.varint(unbounded);
      const std::uint64_t times = 1 + ((token & 1) != 0 ? r.varint(unbounded) : 0);
      if (size_input >> 1 > 0xffff || times > value_count - i) throw ProfileError("corrupt profile: bad value");
      for (std::uint64_t k = 0; k < times; ++k, ++i) {
        VertexId vertex;
        if (!vertex_code.decode(code, vertex)) throw ProfileError("corrupt profile: bad value");
        vertex_end = std::max<std::uint64_t>(vertex_end, std::uint64_t{vertex} + 1);
        profile.values.create(static_cast<std::uint32_t>(size_input >> 1), (size_input & 1) != 0, vertex);
      }
    }
    vertex_count = r.get<std::uint64_t>();
    if (vertex_end > vertex_count) throw ProfileError("corrupt profile: value in a vertex that does not exist");
  } else {
    const auto sizes = r.array<std::uint16_t>(value_count);
    const auto inputs = r.array<std::uint8_t>(value_count);
    const auto vertices = r.array<VertexId>(value_count);
    vertex_count = r.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < value_count; ++i) {
      if (vertices[i] >= vertex_count) throw ProfileError("corrupt profile: value in a vertex that does not exist");
      profile.values.create(sizes[i], inputs[i] != 0, vertices[i]);
    }
  }
  profile.vertex_home = r.array<Address, BigArray<Address>>(vertex_count);
  profile.vertex_weight = r.array<std::uint32_t, BigArray<std::uint32_t>>(vertex_count);
  profile.vertex_group = r.array<std::uint32_t, BigArray<std::uint32_t>>(vertex_count);
  profile.iteration_marks = r.array<ValueId>(r.get<std::uint64_t>());
  if (version >= 13) {
    profile.recorded_iterations = r.get<std::uint64_t>();
    if (profile.recorded_iterations > profile.iteration_marks.size()) {
      throw ProfileError("corrupt profile: more iterations recorded than marked");
    }
  }
}

// The arrays and the moves between them (version 5 on).
inline void read_arrays(Reader& r, std::uint32_t version, LoadedProfile& profile) {
  const auto arrays = r.get<std::uint64_t>();
  if (arrays > profile.vertex_count() + (1u << 20)) throw ProfileError("corrupt profile: impossible array count");
  profile.arrays.resize(arrays);
  for (auto& a : profile.arrays) {
    a.base = r.get<std::uint64_t>();
    a.bytes = r.get<std::uint64_t>();
    const auto flags = r.get<std::uint64_t>();
    a.freed = (flags & 1) != 0;
    a.indexed_indirectly = (flags & 2) != 0;
    a.scratch = (flags & 4) != 0;
    a.copied_into = version < 8 || (flags & 8) != 0;  // unknown before: as if copied into
    a.by_program = (flags & 16) == 0;
    a.row_table = (flags & 32) != 0;
  }
  const auto moves = r.get<std::uint64_t>();
  if (moves > (std::uint64_t{1} << 32)) throw ProfileError("corrupt profile: impossible move count");
  profile.moves.resize(moves);
  for (auto& m : profile.moves) {
    m.from = static_cast<std::uint32_t>(r.get<std::uint64_t>());
    m.to = static_cast<std::uint32_t>(r.get<std::uint64_t>());
    m.from_offset = r.get<std::uint64_t>();
    m.to_offset = r.get<std::uint64_t>();
    m.bytes = r.get<std::uint64_t>();
    if (m.from == 0 || m.to == 0 || m.from > arrays || m.to > arrays) {
      throw ProfileError("corrupt profile: a move between arrays that do not exist");
    }
  }
}

// The source sites and the runs of values made at each (version 7 on; the
// loop's own file from version 8).
inline void read_sites(Reader& r, std::uint32_t version, std::uint64_t value_count, LoadedProfile& profile) {
  const auto sites = r.get<std::uint64_t>();
  if (sites > (std::uint64_t{1} << 24)) throw ProfileError("corrupt profile: impossible site count");
  profile.sites.resize(sites);
  for (auto& site : profile.sites) {
    site.id = r.get<std::uint32_t>();
    site.line = r.get<std::uint32_t>();
    site.loop_line = r.get<std::uint32_t>();
    read_text(r, site.file, "site file name");
    if (version >= 8) {
      read_text(r, site.loop_file, "site file name");
    } else if (site.loop_line != 0) {
      site.loop_file = site.file;
    }
  }
  const auto runs = r.get<std::uint64_t>();
  if (runs > value_count) throw ProfileError("corrupt profile: impossible site run count");
  profile.value_sites.resize(runs);
  using SiteRun = LoadedProfile::SiteRun;
  constexpr bool kAsInFile = std::endian::native == std::endian::little && sizeof(SiteRun) == 8 &&
                             offsetof(SiteRun, first) == 0 && offsetof(SiteRun, site) == 4;
  if constexpr (kAsInFile) r.bytes(profile.value_sites.data(), runs * sizeof(SiteRun));
  ValueId previous = 0;
  for (auto& run : profile.value_sites) {
    if constexpr (!kAsInFile) {
      run.first = r.get<std::uint32_t>();
      run.site = r.get<std::uint32_t>();
    }
    if (run.first <= previous || run.first > value_count) throw ProfileError("corrupt profile: bad site run");
    previous = run.first;
  }
}

// The loop results recorded as reductions, by ascending vertex (version 9 on).
inline void read_reductions(Reader& r, LoadedProfile& profile) {
  const auto reductions = r.get<std::uint64_t>();
  if (reductions > profile.vertex_count()) throw ProfileError("corrupt profile: impossible reduction count");
  profile.reductions.resize(reductions);
  for (std::size_t k = 0; k < profile.reductions.size(); ++k) {
    auto& reduction = profile.reductions[k];
    reduction.vertex = r.get<std::uint32_t>();
    reduction.site = r.get<std::uint32_t>();
    if (reduction.vertex >= profile.vertex_count() || (k > 0 && reduction.vertex <= profile.reductions[k - 1].vertex)) {
      throw ProfileError("corrupt profile: bad reduction vertex");
    }
  }
}

// The arrays' allocation sites and each array's (version 10 on).
inline void read_array_sites(Reader& r, LoadedProfile& profile) {
  const auto sites = r.get<std::uint64_t>();
  if (sites > (std::uint64_t{1} << 24)) throw ProfileError("corrupt profile: impossible array site count");
  profile.array_sites.resize(sites);
  for (auto& site : profile.array_sites) {
    site.id = r.get<std::uint32_t>();
    site.line = r.get<std::uint32_t>();
    read_text(r, site.file, "array site name");
    read_text(r, site.name, "array site name");
  }
  for (auto& a : profile.arrays) a.site = r.get<std::uint32_t>();
}

// The renumbering write_renumbering wrote, checked: ids below the first
// region value, ascending, and no more of them than it.
inline SetUpRenumbering read_renumbering(Reader& r) {
  SetUpRenumbering renumbering;
  const auto first = r.get<std::uint64_t>();
  if (first == 0) return renumbering;
  const auto kept = r.get<std::uint64_t>();
  std::uint64_t budget = r.get<std::uint64_t>();
  if (first > ~ValueId{0} || kept >= first || budget > 10 * kept) throw ProfileError("corrupt profile: bad renumbering");
  renumbering.first = static_cast<ValueId>(first);
  renumbering.kept = RankedBits(first);
  std::uint64_t id = 0;
  for (std::uint64_t k = 0; k < kept; ++k) {
    const std::uint64_t gap = r.varint(budget);
    if (gap == 0 || gap >= first - id) throw ProfileError("corrupt profile: bad renumbering");
    id += gap;
    renumbering.kept.insert(id);
  }
  if (budget != 0) throw ProfileError("corrupt profile: bad renumbering");
  renumbering.shift = static_cast<ValueId>(first - 1 - renumbering.kept.seal());
  return renumbering;
}

// The replays of a version-12 profile, checked against the chains coded:
// each comes after the chains it replays (its ref's first, that many on).
struct FlowReplayTable {
  ValueId threshold = 0;  // renumbered
  std::vector<std::uint64_t> ref_index;
  std::vector<FlowReplay> replays;
};

inline FlowReplayTable read_replays(Reader& r, std::uint64_t flow_count, std::uint64_t source_total,
                                    const SetUpRenumbering& renumbering) {
  FlowReplayTable t;
  const auto threshold = r.get<std::uint64_t>();
  const auto refs = r.get<std::uint64_t>();
  if (threshold > ~ValueId{0} || refs > flow_count) throw ProfileError("corrupt profile: bad flow replays");
  if (threshold != 0 && !renumbering.none() && threshold < renumbering.first) {
    throw ProfileError("corrupt profile: bad flow replays");
  }
  t.threshold = threshold == 0 ? 0 : renumbering(static_cast<ValueId>(threshold));
  for (std::uint64_t k = 0; k < refs; ++k) {
    t.ref_index.push_back(r.get<std::uint64_t>());
    if (t.ref_index.back() >= flow_count || (k != 0 && t.ref_index.back() <= t.ref_index[k - 1])) {
      throw ProfileError("corrupt profile: bad flow replays");
    }
  }
  const auto replays = r.get<std::uint64_t>();
  if (replays != 0 && (threshold == 0 || refs == 0)) throw ProfileError("corrupt profile: bad flow replays");
  for (std::uint64_t k = 0; k < replays; ++k) {
    FlowReplay p;
    p.at = r.get<std::uint64_t>();
    p.ref = r.get<std::uint32_t>();
    p.chains = r.get<std::uint64_t>();
    p.sources = r.get<std::uint64_t>();
    p.shift = r.get<std::uint32_t>();
    // Its chains are coded between its ref and the replay.
    if (p.at > flow_count || p.ref >= refs || p.chains == 0 || t.ref_index[p.ref] + p.chains > p.at ||
        p.sources > source_total || (k != 0 && p.at < t.replays.back().at)) {
      throw ProfileError("corrupt profile: bad flow replays");
    }
    t.replays.push_back(p);
  }
  return t;
}

// The value flows (varint chains from version 4), each checked against the
// values read.
inline void read_flows(Reader& r, std::uint32_t version, std::uint64_t value_count, LoadedProfile& profile) {
  const auto flow_count = r.get<std::uint64_t>();
  const auto source_total = r.get<std::uint64_t>();
  const SetUpRenumbering renumbering = version >= 11 ? read_renumbering(r) : SetUpRenumbering{};
  const FlowReplayTable replays = version >= 12 ? read_replays(r, flow_count, source_total, renumbering)
                                                : FlowReplayTable{};
  std::size_t next_ref = 0, next_replay = 0;
  // The checkpoints and replays before coded chain f.
  auto replays_before = [&](std::uint64_t f) {
    for (; next_ref < replays.ref_index.size() && replays.ref_index[next_ref] == f; ++next_ref) {
      profile.flows.checkpoint();
    }
    for (; next_replay < replays.replays.size() && replays.replays[next_replay].at == f; ++next_replay) {
      const FlowReplay& p = replays.replays[next_replay];
      profile.flows.replay(p.ref, p.chains, p.sources, p.shift, replays.threshold);
    }
  };
  std::vector<ValueId> sources;
  std::uint64_t seen = 0;
  auto append = [&](ValueId value, std::span<const ValueId> chain) {
    try {
      profile.flows.append(value, chain);
    } catch (const std::invalid_argument&) {
      throw ProfileError("corrupt profile: bad value flow");
    }
  };
  // A recorded id in the renumbered profile; a dropped set-up value is
  // none (it cannot be a source).
  auto renumbered = [&](ValueId id) -> ValueId {
    if (id < renumbering.first && !renumbering.kept.contains(id)) throw ProfileError("corrupt profile: bad value flow");
    return renumbering(id);
  };
  if (version >= 4) {
    std::uint64_t budget = r.get<std::uint64_t>();  // bytes of the chains
    ValueId value = 0;
    auto next = [&] { return r.varint(budget); };
    flow_code::Decoder decoder;
    std::vector<ValueId> moved;  // the chain renumbered (the decoder keeps its ids as recorded)
    for (std::uint64_t f = 0; f < flow_count; ++f) {
      replays_before(f);
      if (!decoder.next_chain(next, value, sources)) throw ProfileError("corrupt profile: bad value flow");
      seen += sources.size();
      ValueId v = value;
      std::span<const ValueId> chain = sources;
      if (!renumbering.none()) {
        moved.clear();
        for (ValueId s : sources) moved.push_back(renumbered(s));
        v = renumbered(value);
        chain = moved;
      }
      if (v > value_count || seen > source_total) throw ProfileError("corrupt profile: bad value flow");
      append(v, chain);
    }
    replays_before(flow_count);
    if (budget != 0 || decoder.run_left() != 0) throw ProfileError("corrupt profile: bad value flow");
  } else {
    for (std::uint64_t f = 0; f < flow_count; ++f) {
      const auto v = r.get<ValueId>();
      const auto n = r.get<std::uint32_t>();
      seen += n;
      if (v == kNoValue || v > value_count || seen > source_total) throw ProfileError("corrupt profile: bad value flow");
      sources.resize(n);
      r.bytes(sources.data(), n * sizeof(ValueId));
      for (ValueId s : sources) {
        if (s == kNoValue || s > value_count) throw ProfileError("corrupt profile: unknown source value");
      }
      append(v, sources);
    }
  }
  if (seen != source_total) throw ProfileError("corrupt profile: bad value flow");
}

}  // namespace profile_io_internal

// Reads a profile written by write_profile; throws ProfileError naming the
// problem (not a profile, other version, truncated, corrupt).
inline LoadedProfile read_profile(std::istream& in, ProfileInfo* info = nullptr) {
  using namespace profile_io_internal;
  Reader r(in);
  ProfileInfo meta = read_header(r);
  LoadedProfile profile;
  const auto value_count = r.get<std::uint64_t>();
  if (value_count > 0xfffffffe) throw ProfileError("corrupt profile: impossible value count");
  read_values(r, meta.version, value_count, profile);
  if (meta.version >= 5) read_arrays(r, meta.version, profile);
  if (meta.version >= 7) read_sites(r, meta.version, value_count, profile);
  if (meta.version >= 9) read_reductions(r, profile);
  if (meta.version >= 10) read_array_sites(r, profile);
  read_flows(r, meta.version, value_count, profile);
  const std::uint64_t expected = r.hash();
  if (r.get<std::uint64_t>() != expected) throw ProfileError("corrupt profile: checksum mismatch");
  if (info) *info = std::move(meta);
  return profile;
}

template <class Liveness, class Flows>
void save_profile(const std::string& path, const Profile<BasicCompactValueStore<Liveness>, Flows>& profile,
                  const ProfileInfo& info) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw ProfileError("cannot write " + tmp);
    write_profile(out, profile, info);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw ProfileError("cannot rename " + tmp + " to " + path);
}

inline LoadedProfile load_profile(const std::string& path, ProfileInfo* info = nullptr) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProfileError("cannot read profile '" + path + "': " + std::strerror(errno));
  try {
    return read_profile(in, info);
  } catch (const ProfileError& e) {
    throw ProfileError("profile '" + path + "': " + e.what());
  }
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_PROFILE_IO_H_
