#include "pipette/config/canonical.h"

#include "pipette/config/parse_endpoint.h"
#include "pipette/config/spec_def.h"
#include "pipette/util/sha256.h"

namespace pipette::config {
namespace {

using nlohmann::json;

json Model(const WrittenModel& m) {
  if (!m.name) return m.ref;
  return {{"path", m.ref}, {"name", *m.name}};
}

json Quantize(const WrittenQuantize& q) {
  json j = {{"base", q.base.ref}};
  if (!q.types.empty()) j["types"] = q.types;
  if (q.imatrix) {
    json im = {{"types", q.imatrix->types}};
    PutChunks(im, q.imatrix->corpus, q.imatrix->n_ctx, q.imatrix->chunks);
    j["imatrix"] = im;
  }
  // Overrides apply in order (the first pattern that matches wins): a list of pairs.
  for (const auto& o : q.overrides) j["overrides"].push_back({o.pattern, o.type});
  PutWritten(j, "label", q.label);
  return j;
}

json Convert(const WrittenConvert& c) {
  json j = {{"base", c.base.ref}, {"variants", c.variants}};
  PutWritten(j, "to", c.to);
  if (c.block_size || c.symmetric) {
    j["int4"] = json::object();
    PutWritten(j["int4"], "block_size", c.block_size);
    PutWritten(j["int4"], "symmetric", c.symmetric);
  }
  if (c.calibration || c.calibration_tokens || c.calibration_samples || c.damp) {
    j["gptq"] = json::object();
    if (c.calibration) PutWritten(j["gptq"], "calibration", c.calibration->path);
    PutWritten(j["gptq"], "tokens", c.calibration_tokens);
    PutWritten(j["gptq"], "samples", c.calibration_samples);
    PutWritten(j["gptq"], "damp", c.damp);
  }
  return j;
}

}  // namespace

void PutChunks(json& j, const WrittenFile& corpus, const std::optional<int>& n_ctx,
               const std::optional<int>& chunks) {
  PutWritten(j, "corpus", corpus.path);
  PutWritten(j, "n_ctx", n_ctx);
  PutWritten(j, "chunks", chunks);
}

json CanonicalForm(const WrittenExperiment& ex) {
  json j = json::object();
  PutWritten(j, "name", ex.name);
  PutWritten(j, "device", ex.device);
  // Written devices, as written (no name filled in, no path resolved): a file that adds a board
  // is another experiment.
  for (const WrittenDevice& d : ex.devices) {
    nlohmann::json dj = {{"kind", d.kind}, {"options", d.options}};
    if (d.name) dj["name"] = *d.name;
    if (!d.tier.is_null()) dj["tier"] = d.tier;  // another tier is another experiment
    j["devices"].push_back(std::move(dj));
  }
  for (const auto& m : ex.models) j["models"].push_back(Model(m));
  for (const auto& r : ex.runtimes) {
    if (r.endpoint) {
      json e = CanonicalEndpoint(*r.endpoint);
      e["name"] = r.name;
      j["runtimes"].push_back(std::move(e));
      continue;
    }
    j["runtimes"].push_back(r.worker ? json{{"name", r.name}, {"worker", *r.worker}}
                                     : json(r.name));
  }
  for (const auto& p : ex.params) j["params"][p.name] = p.values;
  for (const auto& t : ex.tests) j["tests"].push_back(t.name);
  for (const QualitySpec& q : ex.quality.all()) j["quality"][q.name] = q.def->Canonical(q.value);
  // A section that changes no measurement (select:) is left out of the hash.
  for (const QualitySpec& s : ex.sections.all()) {
    if (s.def->Hashed()) j[s.name] = s.def->Canonical(s.value);
  }
  for (const auto& q : ex.quantize) j["quantize"].push_back(Quantize(q));
  for (const auto& c : ex.convert) j["convert"].push_back(Convert(c));
  PutWritten(j, "repetitions", ex.repetitions);
  PutWritten(j, "warmup", ex.warmup);
  PutWritten(j, "timeout", ex.timeout);
  PutWritten(j, "seed", ex.seed);
  return j;
}

std::string ConfigHash(const WrittenExperiment& ex) { return Sha256Hex(CanonicalForm(ex).dump()); }

}  // namespace pipette::config
