#include "tools/trace_command.h"

#include <iostream>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commanalyzer/record/profile_io.h"
#include "tools/estimate_run.h"
#include "tools/output_files.h"

ABSL_FLAG(std::string, csv, "", "trace: write the message records to this CSV file instead of standard output");

namespace commanalyzer::cli {

namespace {
// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break (a source path may).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}
}  // namespace

void write_trace_csv(std::ostream& out, const MessageTrace& trace) {
  out << "iteration,src,dst,bytes,kind,site\n";
  const absl::flat_hash_map<std::uint32_t, std::string> site_name(trace.site_names.begin(), trace.site_names.end());
  std::size_t c = 0;
  auto collectives_until = [&](std::uint32_t iteration) {
    for (; c < trace.collectives.size() && trace.collectives[c].iteration <= iteration; ++c) {
      const CollectiveCall& call = trace.collectives[c];
      const ProcId src = call.kind == CollectiveKind::kBcast ? call.root : -1;
      out << call.iteration << "," << src << ",-1," << call.bytes << "," << collective_name(call.kind) << ",\n";
    }
  };
  for (std::size_t i = 0; i < trace.messages.size(); ++i) {
    const Message& m = trace.messages[i];
    if (i > 0 && trace.messages[i - 1].iteration != m.iteration) collectives_until(trace.messages[i - 1].iteration);
    const auto name = site_name.find(m.site);
    out << m.iteration << "," << m.from << "," << m.to << "," << m.bytes << ",p2p,"
        << (name == site_name.end() ? "" : csv_field(name->second)) << "\n";
  }
  collectives_until(static_cast<std::uint32_t>(-1));
}

int trace_command(const std::vector<char*>& positional, const EstimateRequest& request) {
  const std::string profile_path = profile_argument(positional, "trace");
  const std::string csv = absl::GetFlag(FLAGS_csv);
  if (!csv.empty()) check_output_file("--csv", csv);
  const LoadedProfile profile = load_recorded_profile(profile_path);
  const CommEstimate e = run_estimate(profile, request).estimates.front();
  const HockneyModel& net = request.cost.network;
  std::ostream& summary = csv.empty() ? std::cerr : std::cout;
  summary << absl::StrFormat(
      "%d processes, %d iterations (%s): %d point-to-point messages, %d bytes; %d collective calls, %d bytes "
      "(logical volume)\npredicted communication time %.2f us (latency %g us, bandwidth %g GB/s)\n",
      request.procs.front(), e.iterations, e.distribution, e.trace.messages.size(), e.p2p_bytes, e.trace.collectives.size(),
      e.collective_bytes(), e.seconds * 1e6, net.alpha_seconds * 1e6, 1e-9 / net.seconds_per_byte);
  if (csv.empty()) {
    write_trace_csv(std::cout, e.trace);
  } else {
    write_atomically(csv, [&](std::ostream& o) { write_trace_csv(o, e.trace); });
    std::cout << "wrote " << e.trace.messages.size() + e.trace.collectives.size() << " records to " << csv << "\n";
  }
  return 0;
}

}  // namespace commanalyzer::cli
