#include "pipette/workload/gen/gen.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "pipette/estimate/work.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/quality/datasets.h"
#include "pipette/quality/ppl.h"
#include "pipette/util/json_read.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/divergence/spec.h"
#include "pipette/workload/gen/derive.h"
#include "pipette/workload/gen/renderer.h"
#include "pipette/workload/gen/spec.h"
#include "pipette/workload/timing.h"

namespace pipette::workload {
namespace {

using nlohmann::json;

class Gen : public Workload {
 public:
  std::string Name() const override { return "gen"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    if (!GenSpecOf(ex)) return {};
    // tokenize only for the items' token density, which a server without a tokenizer endpoint
    // leaves out (every worker serves tokenize).
    return {{"gen", {protocol::op::kChat}}};
  }

  int64_t ContextNeed(const config::Experiment& ex, int64_t) const override {
    const GenSpec* spec = GenSpecOf(ex);
    return spec ? spec->max_need : 0;
  }

  std::string ContextNeedWhat(const config::Experiment& ex, int64_t) const override {
    const GenSpec* spec = GenSpecOf(ex);
    if (!spec) return "";
    return fmt::format("the gen item at {}:{}: its prompt and system bytes, and max_tokens",
                       spec->dataset, spec->max_line);
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    const GenSpec* spec = GenSpecOf(ex);
    if (!spec) return;
    out->push_back({cell.Key(), "gen", "gen", double(estimate::Items(spec->limit, spec->n_items))});
  }

  // The divergence reference: the cell the kept cells were compared with, else the first kept
  // cell of the reference model; {cell_id}.
  Result<json> ResumeState(store::Store& store, const config::Experiment& ex,
                           const ResumeInput& in) const override {
    if (!DivergenceSpecOf(ex)) return json();
    auto samples = store.SamplesOfRun(in.run_id, {"gen_dataset"});
    if (!samples) return samples.error();
    std::set<int64_t> kept;
    for (const auto& [index, id] : in.kept) kept.insert(id);
    int64_t ref = 0;
    for (const store::SampleRecord& s : *samples) {
      if (kept.count(s.cell_id) && !ref) {
        ref = json_read::Int(s.raw, "divergence_reference_cell_id").value_or(0);
      }
    }
    if (!ref) ref = FirstKeptCellOf(in, DivergenceSpecOf(ex)->reference);
    if (!kept.count(ref)) return json();
    return json{{"cell_id", ref}};
  }

  void Resume(const json& state) override {
    if (const int64_t id = state.value("cell_id", int64_t{0})) ref_cell_id_ = id;
  }

  // Per item.
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    if (s.test != "gen") return std::nullopt;
    return ItemTimed(s.raw, "gen");
  }

  metrics::Headlines Headlines() const override { return {GenHeadline()}; }

  void Finish() override { renderer_.Finish(); }

  // Divergence: the cell's outputs against the reference cell's.
  bool ReadsOtherCells(const std::vector<store::SampleRecord>& samples) const override {
    return std::any_of(samples.begin(), samples.end(), [](const store::SampleRecord& s) {
      return s.test == "gen_dataset" && s.raw.contains("divergence_reference_cell_id");
    });
  }

  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById& by_id, const store::EnvironmentRecord&,
                std::vector<metrics::ResultRow>* rows) const override {
    return DeriveGen(base, cell, by_id, rows);
  }

  RunStatus Run(Context& ctx, size_t) override {
    const config::Experiment& ex = ctx.Experiment();
    const GenSpec& spec = *GenSpecOf(ex);
    const plan::Cell& cell = ctx.Cell();
    const store::CellRecord& rec = ctx.Record();
    if (!gen_) {
      auto ds = quality::LoadGenDataset(spec.dataset);
      if (!ds) return Failed(ds.error().message);
      gen_ = std::move(*ds);
    }
    const size_t n =
        spec.limit > 0 ? std::min<size_t>(spec.limit, gen_->items.size()) : gen_->items.size();
    for (size_t i = 0; i < n; ++i) {
      if (ctx.Stopped()) return Failed("interrupted");
      const quality::GenItem& item = gen_->items[i];
      protocol::ChatRequest request;
      if (!item.system.empty()) request.messages.push_back({"system", item.system});
      request.messages.push_back({"user", item.prompt});
      request.max_tokens = item.max_tokens;
      request.n_batch = ctx.NBatch();
      if (!spec.template_options.empty()) request.template_options = spec.template_options;
      // A runtime without a template engine is sent the prompt the renderer made; an endpoint
      // renders its own (the server's chat template: what a user of the server gets).
      std::optional<protocol::RenderChatResponse> rendered;
      if (!ctx.Serves(protocol::op::kRenderChat) && !cell.runtime.endpoint) {
        auto r = renderer_.Render(ctx, request.messages, spec.template_options);
        if (!r) return r.error();
        rendered = std::move(*r);
        // Tokenized as the worker will tokenize it: a converted tokenizer is checked here.
        if (auto toks = Tokenize(ctx, rendered->prompt, true, nullptr, true); !toks) {
          return toks.error();
        }
        request.prompt = rendered->prompt;
        request.messages.clear();
        request.template_options = json::object();
      }
      const auto t0 = std::chrono::steady_clock::now();
      auto resp = ctx.Call(request.ToJson());
      if (!resp) return resp.error();
      auto chat = protocol::ChatResponse::FromJson(*resp);
      if (!chat) return Broken(chat.error().message);
      if (rendered) {
        if (chat->prompt != rendered->prompt) {
          return Broken(
              fmt::format("item {}: the worker answered for another prompt than the "
                          "rendered one it was sent",
                          item.id));
        }
        chat->template_text = rendered->template_text;
        chat->template_origin = rendered->template_origin;
        chat->template_options = rendered->template_options;
        chat->enable_thinking = rendered->enable_thinking;
      }
      ctx.Done("gen", 1, SecondsSince(t0));
      if (i == 0) {
        // How every prompt of the cell was made: the template (hashed; it is the model file's),
        // where it came from, the options it was given and the thinking switch it saw.
        json info = {
            {"path", gen_->path},
            {"sha256", gen_->sha256},
            {"n_items", n},
            {"template_sha256", Sha256Hex(chat->template_text.value_or(""))},
            {"template_origin", chat->template_origin.value_or("")},
            {"template_options", spec.template_options},
            {"enable_thinking", chat->enable_thinking ? json(*chat->enable_thinking) : json()},
            // Who rendered the prompts: the runtime itself, or the renderer for it.
            {"template_rendered_by", rendered ? "render_chat" : "runtime"}};
        if (DivergenceSpecOf(ex)) {
          // The first cell of the reference model that completes gen is the one every later
          // cell is compared with; a reference cell compares with itself.
          const bool candidate_ref =
              !ref_cell_id_ && cell.model.name == DivergenceSpecOf(ex)->reference;
          info["divergence_reference_cell_id"] = candidate_ref ? rec.id : ref_cell_id_;
        }
        if (auto st = ctx.Keep("gen_dataset", 0, false, info); !st) return st;
      }
      json checkers = json::array();
      for (const auto& c : item.checkers) {
        checkers.push_back({{"type", c.type}, {"role", c.role}, {"spec", c.spec}});
      }
      json raw = RawFacts(std::move(*resp));
      raw.erase("template");  // one copy, hashed, in gen_dataset
      raw.erase("template_origin");
      raw.erase("template_options");
      raw.erase("enable_thinking");
      raw["prompt_sha256"] = Sha256Hex(chat->prompt);  // the rendered prompt's
      if (ctx.Serves(protocol::op::kTokenize)) {
        auto own = Tokenize(ctx, item.prompt, /*add_special=*/false);
        if (!own) return own.error();
        raw["text_tokens"] = own->size();
      }
      raw["text_chars"] = quality::CountCodePoints(item.prompt);
      raw["item"] = {{"id", item.id},
                     {"language", item.language},
                     {"task_type", item.task_type},
                     {"checkers", checkers}};
      if (auto st = ctx.Keep("gen", static_cast<int>(i), false, raw); !st) return st;
      ctx.Step(fmt::format("gen item {}/{}", i + 1, n));
    }
    if (DivergenceSpecOf(ex) && !ref_cell_id_ &&
        cell.model.name == DivergenceSpecOf(ex)->reference) {
      ref_cell_id_ = rec.id;
    }
    return {};
  }

 private:
  std::optional<quality::GenDataset> gen_;  // read once per run
  ChatRenderer renderer_;                   // prompts for runtimes that cannot render them
  int64_t ref_cell_id_ = 0;                 // the divergence reference cell
};

}  // namespace

std::unique_ptr<Workload> NewGen() { return std::make_unique<Gen>(); }

}  // namespace pipette::workload
