#include "pipette/workload/kld/spec.h"

#include <fmt/format.h>

#include <vector>

#include "pipette/config/canonical.h"
#include "pipette/config/resolve_files.h"
#include "pipette/util/strings.h"

namespace pipette::workload {
namespace {

using config::Where;

Result<WrittenKld> ParseKld(const config::Where& w, const YAML::Node& node) {
  WrittenKld spec;
  spec.line = config::Line(node);
  spec.corpus.pos = config::PosOf(node);
  auto m = config::YamlMapping::Read(w, node, "kld",
                                     "kld: needs at least 'reference:' (a model of this file)");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"reference", "corpus", "n_ctx", "chunks", "mode", "top_k"}, " in kld");
      !st) {
    return st.error();
  }
  FieldReader& f = m->fields();
  spec.reference = f.String("reference", "");
  if (f.Has("mode")) {
    const std::string mode = f.String("mode");
    if (f.ok() && mode != "full" && mode != "topk") {
      f.FailAt("mode", fmt::format("kld.mode must be full or topk, not '{}'{}", mode,
                                   DidYouMean(mode, {"full", "topk"})));
    }
    spec.mode = mode == "topk" ? KldMode::kTopK : KldMode::kFull;
  }
  if (f.Has("corpus")) spec.corpus = {f.String("corpus"), m->PlaceOf("corpus")};
  spec.n_ctx = f.OptionalInt("n_ctx", 4, 1 << 20);
  spec.chunks = f.OptionalInt("chunks", 0, 1 << 20);
  spec.top_k = f.OptionalInt("top_k", 1, 1000);
  if (auto st = m->status(); !st) return st.error();
  // `top_k` asks for the compact mode; with `mode: full` it would be ignored, so it is refused.
  if (spec.top_k && spec.mode == KldMode::kFull) {
    return m->At("top_k",
                 "kld.top_k applies to mode: topk only (mode: full compares every "
                 "id of the vocabulary)");
  }
  if (spec.reference.empty()) return m->Here("kld: needs 'reference:' (a model of this file)");
  return spec;
}

class KldDef : public config::SpecDef {
 public:
  std::string Name() const override { return "kld"; }

  Result<std::any> Parse(const Where& w, const YAML::Node& node) const override {
    auto k = ParseKld(w, node);
    if (!k) return k.error();
    return std::any(std::move(*k));
  }

  std::optional<std::string> Reference(const std::any& written) const override {
    return std::any_cast<const WrittenKld&>(written).reference;
  }

  nlohmann::json Canonical(const std::any& written) const override {
    const auto& k = std::any_cast<const WrittenKld&>(written);
    nlohmann::json j = {{"reference", k.reference}};
    config::PutChunks(j, k.corpus, k.n_ctx, k.chunks);
    config::PutWritten(j, "top_k", k.top_k);
    if (k.mode) j["mode"] = *k.mode == KldMode::kTopK ? "topk" : "full";
    return j;
  }

  Result<std::any> Resolve(const Where& w, const std::any& any,
                           const config::ResolveOptions& opt) const override {
    const auto& written = std::any_cast<const WrittenKld&>(any);
    KldSpec spec;
    spec.line = written.line;
    spec.reference = written.reference;
    spec.n_ctx = written.n_ctx.value_or(spec.n_ctx);
    spec.chunks = written.chunks.value_or(spec.chunks);
    spec.top_k = written.top_k.value_or(spec.top_k);
    // `top_k` alone asks for the compact mode.
    spec.mode = written.mode.value_or(written.top_k ? KldMode::kTopK : KldMode::kFull);
    auto file = config::CorpusFile(w, written.corpus, opt, "corpus");
    if (!file) return file.error();
    spec.corpus = *file;
    if (auto st = config::CheckCorpusFitsAChunk(w, written.corpus.pos, spec.corpus, spec.n_ctx,
                                                "kld corpus");
        !st) {
      return st.error();
    }
    return std::any(spec);
  }

  // The reference is a model of the file; it runs first.
  Status Validate(config::Experiment* ex) const override {
    const KldSpec* spec = KldSpecOf(*ex);
    if (!spec) return {};
    const int i = config::ModelIndex(*ex, spec->reference);
    if (i < 0) {
      std::vector<std::string> names;
      for (const auto& m : ex->models) names.push_back(m.name);
      return InputError(fmt::format("{}:{}: kld reference '{}' is not a model of this file{}",
                                    ex->path, spec->line, spec->reference,
                                    DidYouMean(spec->reference, names)));
    }
    config::MoveModelFirst(ex, i);
    return {};
  }

  nlohmann::json Resolved(const std::any& resolved) const override {
    const auto& k = std::any_cast<const KldSpec&>(resolved);
    nlohmann::json j = {{"reference", k.reference},
                        {"corpus", k.corpus},
                        {"n_ctx", k.n_ctx},
                        {"chunks", k.chunks},
                        {"mode", k.mode == KldMode::kTopK ? "topk" : "full"}};
    if (k.mode == KldMode::kTopK) j["top_k"] = k.top_k;
    return j;
  }
};

}  // namespace

const config::SpecDef& KldSpecDef() {
  static const KldDef kDef;
  return kDef;
}

const KldSpec* KldSpecOf(const config::Experiment& ex) { return ex.quality.Get<KldSpec>("kld"); }

KldSpec* MutableKldSpecOf(config::Experiment* ex) { return ex->quality.Mutable<KldSpec>("kld"); }

void SetKldSpec(config::Experiment* ex, KldSpec spec) {
  ex->quality.Set(KldSpecDef(), std::move(spec));
}

}  // namespace pipette::workload
