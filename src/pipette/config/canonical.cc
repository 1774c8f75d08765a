#include "pipette/config/canonical.h"

#include "pipette/util/sha256.h"

namespace pipette::config {
namespace {

using nlohmann::json;

template <class T>
void Put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

json Model(const WrittenModel& m) {
  if (!m.name) return m.ref;
  return {{"path", m.ref}, {"name", *m.name}};
}

json File(const WrittenFile& f) { return f.path ? json(*f.path) : json(); }

json Ppl(const WrittenPpl& p) {
  json j = json::object();
  if (p.corpus.path) j["corpus"] = File(p.corpus);
  Put(j, "n_ctx", p.n_ctx);
  Put(j, "chunks", p.chunks);
  return j;
}

json Kld(const WrittenKld& k) {
  json j = {{"reference", k.reference}};
  if (k.corpus.path) j["corpus"] = File(k.corpus);
  Put(j, "n_ctx", k.n_ctx);
  Put(j, "chunks", k.chunks);
  Put(j, "top_k", k.top_k);
  if (k.mode) j["mode"] = *k.mode == KldMode::kTopK ? "topk" : "full";
  return j;
}

json Dataset(const WrittenDataset& d) {
  json j = json::object();
  if (d.dataset.path) j["dataset"] = File(d.dataset);
  Put(j, "limit", d.limit);
  Put(j, "template_options", d.template_options);
  return j;
}

json Quantize(const WrittenQuantize& q) {
  json j = {{"base", q.base.ref}};
  if (!q.types.empty()) j["types"] = q.types;
  if (q.imatrix) {
    json im = {{"types", q.imatrix->types}};
    if (q.imatrix->corpus.path) im["corpus"] = File(q.imatrix->corpus);
    Put(im, "n_ctx", q.imatrix->n_ctx);
    Put(im, "chunks", q.imatrix->chunks);
    j["imatrix"] = im;
  }
  // Overrides apply in order (the first pattern that matches wins): a list of pairs.
  for (const auto& o : q.overrides) j["overrides"].push_back({o.pattern, o.type});
  Put(j, "label", q.label);
  return j;
}

}  // namespace

json CanonicalForm(const WrittenExperiment& ex) {
  json j = json::object();
  Put(j, "name", ex.name);
  Put(j, "device", ex.device);
  for (const auto& m : ex.models) j["models"].push_back(Model(m));
  for (const auto& r : ex.runtimes) {
    j["runtimes"].push_back(r.worker ? json{{"name", r.name}, {"worker", *r.worker}}
                                     : json(r.name));
  }
  for (const auto& p : ex.params) j["params"][p.name] = p.values;
  for (const auto& t : ex.tests) j["tests"].push_back(t.name);
  if (ex.ppl) j["quality"]["ppl"] = Ppl(*ex.ppl);
  if (ex.kld) j["quality"]["kld"] = Kld(*ex.kld);
  if (ex.mc) j["quality"]["mc"] = Dataset(*ex.mc);
  if (ex.gen) j["quality"]["gen"] = Dataset(*ex.gen);
  if (ex.divergence_reference) j["quality"]["divergence"] = *ex.divergence_reference;
  for (const auto& q : ex.quantize) j["quantize"].push_back(Quantize(q));
  Put(j, "repetitions", ex.repetitions);
  Put(j, "warmup", ex.warmup);
  Put(j, "timeout", ex.timeout);
  Put(j, "seed", ex.seed);
  return j;
}

std::string ConfigHash(const WrittenExperiment& ex) { return Sha256Hex(CanonicalForm(ex).dump()); }

}  // namespace pipette::config
