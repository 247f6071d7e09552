// Memory sizes as a user writes them (512M, 8G), the machine's memory, and
// a process's resident memory: what --max-memory is stated and checked in.
#ifndef COMMANALYZER_TOOLS_LIMITS_H_
#define COMMANALYZER_TOOLS_LIMITS_H_

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace commanalyzer::cli {

// "1048576", "512K", "512M", "8G", "1.5G", "1T" (powers of 1024; a trailing
// "B" or "iB" is allowed). nullopt when malformed or not positive.
inline std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  std::string_view number = text;
  double scale = 1;
  for (std::string_view suffix : {"iB", "B"}) {
    if (number.size() > suffix.size() && number.substr(number.size() - suffix.size()) == suffix) {
      number.remove_suffix(suffix.size());
      break;
    }
  }
  if (!number.empty()) {
    const char unit = number.back();
    const std::string_view units = "KMGT";
    if (const auto k = units.find(static_cast<char>(unit & ~0x20)); k != std::string_view::npos) {
      scale = static_cast<double>(std::uint64_t{1} << (10 * (k + 1)));
      number.remove_suffix(1);
    }
  }
  double value = 0;
  if (!absl::SimpleAtod(absl::string_view(number.data(), number.size()), &value) || !(value > 0) || value * scale >= 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(value * scale);
}

inline std::string format_bytes(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30)) return absl::StrFormat("%.1f GiB", bytes / 1073741824.0);
  if (bytes >= (std::uint64_t{1} << 20)) return absl::StrFormat("%.1f MiB", bytes / 1048576.0);
  return absl::StrFormat("%d KiB", (bytes + 1023) / 1024);
}

// MemTotal from /proc/meminfo; 0 if unknown.
inline std::uint64_t machine_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

// 3/4 of the machine's memory: the rest for the system and the program's
// own pages, so the limit is reached before the kernel's OOM killer acts.
inline std::string default_max_memory() {
  const std::uint64_t total = machine_memory_bytes();
  if (total == 0) return "8G";
  return absl::StrFormat("%dM", total / 4 * 3 >> 20);
}

// Resident memory of a process (/proc/PID/statm); 0 if unknown.
inline std::uint64_t resident_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_LIMITS_H_
