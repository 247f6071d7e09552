// Zoltan's PHG (tools/zoltan_phg) as a hypergraph partitioner
// (include/commanalyzer/estimate/hypergraph.h): the command starts it as
// a program of its own, so that its MPI_Init, which aborts the process
// where MPI cannot start, costs one candidate and not the analysis.
#ifndef COMMANALYZER_TOOLS_SPAWNED_HYPERGRAPH_H_
#define COMMANALYZER_TOOLS_SPAWNED_HYPERGRAPH_H_

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "commanalyzer/estimate/hypergraph.h"

extern char** environ;

namespace commanalyzer {

// Runs `program HYPERGRAPH_FILE PARTS OUT_FILE` and reads one part per
// vertex back. Throws std::runtime_error when the program fails or answers
// nonsense; its stderr goes to the tool's.
struct SpawnedHypergraphPartitioner {
  std::filesystem::path program;

  std::vector<ProcId> partition(const LocationHypergraph& h, int parts) const {
    std::vector<ProcId> owner(h.vertex_count(), 0);
    if (parts == 1 || h.vertex_count() == 0) return owner;
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/commanalyzer-hypergraph-XXXXXX";
    const char* dir = mkdtemp(pattern.data());
    if (dir == nullptr) throw std::runtime_error("hypergraph: cannot make a temporary directory");
    const std::filesystem::path in = std::filesystem::path(dir) / "hypergraph", out = std::filesystem::path(dir) / "parts";
    struct Cleanup {
      std::filesystem::path dir;
      ~Cleanup() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    } cleanup{dir};
    {
      std::ofstream file(in);
      write_hypergraph(file, h);
      if (!file) throw std::runtime_error("hypergraph: cannot write " + in.string());
    }
    const std::string parts_text = std::to_string(parts);
    std::vector<std::string> args = {program.string(), in.string(), parts_text, out.string()};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      throw std::runtime_error("hypergraph: cannot run " + program.string());
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) throw std::runtime_error("hypergraph: lost " + program.string());
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw std::runtime_error(program.filename().string() + " failed (exit status " +
                               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")");
    }
    std::ifstream result(out);
    for (ProcId& p : owner) {
      if (!(result >> p) || p < 0 || p >= parts) throw std::runtime_error("hypergraph: bad answer from " + program.string());
    }
    return owner;
  }
};

static_assert(HypergraphPartitioner<SpawnedHypergraphPartitioner>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_TOOLS_SPAWNED_HYPERGRAPH_H_
