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

// corpus:, n_ctx: and chunks: of what reads a corpus in chunks (ppl, kld, an importance matrix).
void PutChunks(json& j, const WrittenFile& corpus, const std::optional<int>& n_ctx,
               const std::optional<int>& chunks) {
  Put(j, "corpus", corpus.path);
  Put(j, "n_ctx", n_ctx);
  Put(j, "chunks", chunks);
}

json Kld(const WrittenKld& k) {
  json j = {{"reference", k.reference}};
  PutChunks(j, k.corpus, k.n_ctx, k.chunks);
  Put(j, "top_k", k.top_k);
  if (k.mode) j["mode"] = *k.mode == KldMode::kTopK ? "topk" : "full";
  return j;
}

json Dataset(const WrittenDataset& d) {
  json j = json::object();
  Put(j, "dataset", d.dataset.path);
  Put(j, "limit", d.limit);
  Put(j, "template_options", d.template_options);
  return j;
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
  if (ex.ppl) {
    json ppl = json::object();
    PutChunks(ppl, ex.ppl->corpus, ex.ppl->n_ctx, ex.ppl->chunks);
    j["quality"]["ppl"] = ppl;
  }
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
