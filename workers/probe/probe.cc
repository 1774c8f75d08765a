#include "probe/probe.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <new>
#include <system_error>

namespace pipette::probe {
namespace {

bool ParseCount(const std::string& text, uint64_t min, uint64_t max, uint64_t* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end && !text.empty() && *value >= min && *value <= max;
}

}  // namespace

bool ParseBandwidthArgs(const std::vector<std::string>& args, BandwidthOptions* opts,
                        std::string* error) {
  for (size_t i = 0; i < args.size(); i += 2) {
    const std::string& name = args[i];
    if (name != "--array-bytes" && name != "--threads" && name != "--repetitions") {
      *error = "unknown option '" + name + "' (known: --array-bytes, --threads, --repetitions)";
      return false;
    }
    if (i + 1 >= args.size()) {
      *error = name + " needs a value";
      return false;
    }
    uint64_t v = 0;
    if (name == "--array-bytes") {
      // At least one double; at most 16 GiB per array.
      if (!ParseCount(args[i + 1], 8, uint64_t{16} << 30, &v)) {
        *error = "--array-bytes must be a whole number of bytes from 8 to 17179869184, not '" +
                 args[i + 1] + "'";
        return false;
      }
      opts->array_bytes = static_cast<size_t>(v);
    } else if (name == "--threads") {
      if (!ParseCount(args[i + 1], 1, 1024, &v)) {
        *error = "--threads must be a whole number from 1 to 1024, not '" + args[i + 1] + "'";
        return false;
      }
      opts->threads = static_cast<int>(v);
    } else {
      if (!ParseCount(args[i + 1], 1, 1000, &v)) {
        *error = "--repetitions must be a whole number from 1 to 1000, not '" + args[i + 1] + "'";
        return false;
      }
      opts->repetitions = static_cast<int>(v);
    }
  }
  return true;
}

std::string BandwidthJson(const BandwidthResult& r) {
  char line[320];
  std::snprintf(line, sizeof(line),
                "{\"triad_bytes_per_s\":%.17g,\"copy_bytes_per_s\":%.17g,\"array_bytes\":%zu,"
                "\"threads\":%d,\"repetitions\":%d}",
                r.triad_bytes_per_s, r.copy_bytes_per_s, r.array_bytes, r.threads, r.repetitions);
  return line;
}

int ProbeMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] != "bandwidth") {
    err << "usage: pipette-probe bandwidth [--array-bytes N] [--threads N] [--repetitions N]\n";
    return 2;
  }
  BandwidthOptions opts;
  std::string error;
  if (!ParseBandwidthArgs({args.begin() + 1, args.end()}, &opts, &error)) {
    err << "pipette-probe bandwidth: " << error << "\n";
    return 2;
  }
  try {
    out << BandwidthJson(MeasureBandwidth(opts)) << "\n";
  } catch (const std::bad_alloc&) {
    err << "pipette-probe bandwidth: cannot allocate 3 arrays of " << opts.array_bytes
        << " bytes\n";
    return 1;
  } catch (const std::system_error& e) {
    err << "pipette-probe bandwidth: cannot start its threads: " << e.what() << "\n";
    return 1;
  }
  out.flush();
  return out ? 0 : 1;
}

}  // namespace pipette::probe
