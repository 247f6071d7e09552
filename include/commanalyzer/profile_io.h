// Profile files: a run's Profile (profile.h) on disk, so `commanalyzer
// estimate` can re-estimate for new process counts without re-running the
// program. Little-endian binary, versioned, with a checksum:
//
//   "CAPROFIL" u32 version u32 word_bytes
//   u64 length + bytes: free-form metadata (program, arguments)
//   u64 values;   u16 size[values] u8 input[values] u32 vertex[values]
//   u64 vertices; u64 home[] u32 weight[] u32 group[]
//   u64 marks;    u32 mark[]
//   u64 flows; u64 sources; per flow: u32 value u32 count u32 source[count]
//   u64 FNV-1a of everything above
#ifndef COMMANALYZER_PROFILE_IO_H_
#define COMMANALYZER_PROFILE_IO_H_

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/compressor.h"
#include "commanalyzer/profile.h"
#include "commanalyzer/value_store.h"

namespace commanalyzer {

inline constexpr char kProfileMagic[8] = {'C', 'A', 'P', 'R', 'O', 'F', 'I', 'L'};
inline constexpr std::uint32_t kProfileVersion = 3;

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

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}
  template <class T>
  void put(const T& x) {
    bytes(&x, sizeof(T));
  }
  template <class T>
  void array(const std::vector<T>& xs, std::size_t from = 0) {
    bytes(xs.data() + from, (xs.size() - from) * sizeof(T));
  }
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ULL;
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  }
  std::uint64_t hash() const { return hash_; }

 private:
  std::ostream& out_;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

class Reader {
 public:
  explicit Reader(std::istream& in) : in_(in) {}
  template <class T>
  T get() {
    T x{};
    bytes(&x, sizeof(T));
    return x;
  }
  template <class T>
  std::vector<T> array(std::uint64_t n) {
    if (n > (std::uint64_t{1} << 40) / sizeof(T)) throw ProfileError("corrupt profile: impossible array length");
    std::vector<T> xs(n);
    bytes(xs.data(), n * sizeof(T));
    return xs;
  }
  void bytes(void* data, std::size_t n) {
    in_.read(static_cast<char*>(data), static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(in_.gcount()) != n) throw ProfileError("truncated profile (unexpected end of file)");
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ULL;
  }
  std::uint64_t hash() const { return hash_; }

 private:
  std::istream& in_;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace profile_io_internal

template <class Flows>
void write_profile(std::ostream& out, const Profile<CompactValueStore, Flows>& profile, const ProfileInfo& info) {
  profile_io_internal::Writer w(out);
  w.bytes(kProfileMagic, sizeof kProfileMagic);
  w.put(kProfileVersion);
  w.put(info.word_bytes);
  w.put<std::uint64_t>(info.metadata.size());
  w.bytes(info.metadata.data(), info.metadata.size());

  const CompactValueStore& values = profile.values;
  w.put<std::uint64_t>(values.count());
  w.array(values.sizes(), 1);  // slot 0 is kNoValue
  w.array(values.inputs(), 1);
  w.array(values.vertices(), 1);

  w.put<std::uint64_t>(profile.vertex_count());
  w.array(profile.vertex_home);
  w.array(profile.vertex_weight);
  w.array(profile.vertex_group);

  w.put<std::uint64_t>(profile.iteration_marks.size());
  w.array(profile.iteration_marks);

  w.put<std::uint64_t>(profile.flows.flow_count());
  w.put<std::uint64_t>(profile.flows.source_count());
  profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
    w.put(v);
    w.put(static_cast<std::uint32_t>(sources.size()));
    w.bytes(sources.data(), sources.size_bytes());
  });
  const std::uint64_t checksum = w.hash();
  w.put(checksum);
  if (!out) throw ProfileError("error while writing the profile");
}

// Reads a profile written by write_profile; throws ProfileError naming the
// problem (not a profile, other version, truncated, corrupt).
inline Profile<CompactValueStore, FlatFlowStore> read_profile(std::istream& in, ProfileInfo* info = nullptr) {
  profile_io_internal::Reader r(in);
  char magic[sizeof kProfileMagic];
  try {
    r.bytes(magic, sizeof magic);
  } catch (const ProfileError&) {
    throw ProfileError("not a CommAnalyzer profile (file too short)");
  }
  if (std::memcmp(magic, kProfileMagic, sizeof magic) != 0) throw ProfileError("not a CommAnalyzer profile (bad magic)");
  ProfileInfo meta;
  meta.version = r.get<std::uint32_t>();
  if (meta.version != kProfileVersion) {
    throw ProfileError("profile format version " + std::to_string(meta.version) + ", this build reads version " +
                       std::to_string(kProfileVersion) + "; re-run `commanalyzer analyze`");
  }
  meta.word_bytes = r.get<std::uint32_t>();
  const auto meta_len = r.get<std::uint64_t>();
  if (meta_len > (1u << 20)) throw ProfileError("corrupt profile: metadata too long");
  meta.metadata.resize(meta_len);
  r.bytes(meta.metadata.data(), meta_len);

  Profile<CompactValueStore, FlatFlowStore> profile;
  const auto value_count = r.get<std::uint64_t>();
  const auto sizes = r.array<std::uint16_t>(value_count);
  const auto inputs = r.array<std::uint8_t>(value_count);
  const auto vertices = r.array<VertexId>(value_count);
  const auto vertex_count = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < value_count; ++i) {
    if (vertices[i] >= vertex_count) throw ProfileError("corrupt profile: value in a vertex that does not exist");
    profile.values.create(sizes[i], inputs[i] != 0, vertices[i]);
  }
  profile.vertex_home = r.array<Address>(vertex_count);
  profile.vertex_weight = r.array<std::uint32_t>(vertex_count);
  profile.vertex_group = r.array<std::uint32_t>(vertex_count);
  profile.iteration_marks = r.array<ValueId>(r.get<std::uint64_t>());

  const auto flow_count = r.get<std::uint64_t>();
  const auto source_total = r.get<std::uint64_t>();
  std::vector<ValueId> sources;
  std::uint64_t seen = 0;
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
    profile.flows.append(v, sources);
  }
  const std::uint64_t expected = r.hash();
  if (r.get<std::uint64_t>() != expected) throw ProfileError("corrupt profile: checksum mismatch");
  if (info) *info = std::move(meta);
  return profile;
}

template <class Flows>
void save_profile(const std::string& path, const Profile<CompactValueStore, Flows>& profile, const ProfileInfo& info) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw ProfileError("cannot write " + tmp);
    write_profile(out, profile, info);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw ProfileError("cannot rename " + tmp + " to " + path);
}

inline Profile<CompactValueStore, FlatFlowStore> load_profile(const std::string& path, ProfileInfo* info = nullptr) {
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
