#include "pipette/report/csv_reporter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>
#include <vector>

namespace pipette::report {
namespace {

// RFC 4180 quoting where needed.
std::string Csv(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Whole numbers (bytes, counts) in full; others in the shortest form that reads back exactly.
std::string Num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

}  // namespace

void CsvReporter::Write(const ReportData& data, std::ostream& out) const {
  out << "run_id,cell,cell_status,model,model_sha256,model_file_size,n_params,quant,quant_origin,"
         "base_model,runtime,"
         "runtime_version,runtime_build,device,device_id,params,test,metric,unit,median,min,max,"
         "mean,stddev,"
         "cv,n,noisy,value,std_error,ci_low,ci_high,subset,na,dataset_sha256,samples\n";
  for (const auto& r : data.rows) {
    std::string samples;
    for (size_t i = 0; i < r.samples.size(); ++i) {
      samples += (i ? ";" : "") + Num(r.samples[i]);
    }
    const std::vector<std::string> fields = {std::to_string(r.run_id),
                                             std::to_string(r.cell_index + 1),
                                             r.cell_status,
                                             Csv(r.model),
                                             r.model_sha256,
                                             std::to_string(r.model_file_size),
                                             std::to_string(r.n_params),
                                             Csv(r.quant),
                                             Csv(r.quant_origin),
                                             Csv(r.base_model),
                                             Csv(r.runtime),
                                             Csv(r.runtime_version),
                                             Csv(r.runtime_build.dump()),
                                             Csv(r.device),
                                             r.device_id,
                                             Csv(r.params.dump()),
                                             Csv(r.test),
                                             r.metric,
                                             r.unit,
                                             Num(r.summary.median),
                                             Num(r.summary.min),
                                             Num(r.summary.max),
                                             Num(r.summary.mean),
                                             Num(r.summary.stddev),
                                             Num(r.summary.cv),
                                             std::to_string(r.summary.n),
                                             r.summary.noisy ? "true" : "false",
                                             r.na_reason.empty() ? Num(r.value) : "",
                                             r.std_error ? Num(*r.std_error) : "",
                                             r.ci_low ? Num(*r.ci_low) : "",
                                             r.ci_high ? Num(*r.ci_high) : "",
                                             Csv(r.subset),
                                             Csv(r.na_reason),
                                             r.dataset_sha256,
                                             samples};
    out << fmt::format("{}\n", fmt::join(fields, ","));
  }
}

}  // namespace pipette::report
