// ttft@<P> (docs/metrics.md "ttft"): the time to the first token of a text prompt the model's
// tokenizer makes at least P tokens of (a prefix of plain prose, so a runtime that takes text
// is measured on the same prompt). Against an endpoint, its streams.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"
#include "pipette/workload/speed/grammar.h"
#include "pipette/workload/speed/kinds/kinds.h"
#include "pipette/workload/speed/measures.h"
#include "pipette/workload/speed/prompt_text.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

// The shortest prefix of the prose passage that the model's tokenizer turns into at least `n`
// tokens (special tokens included), found by bisection over word boundaries: the text. Kept in
// `memo` by the loaded model and the length.
Result<std::string, RunError> PromptOfTokens(Context& ctx, int64_t n, KindMemo& memo) {
  const std::string key = ctx.LoadKey() + "|" + std::to_string(n);
  if (auto it = memo.find(key); it != memo.end()) return it->second.get<std::string>();
  const std::string prose = ProseText(static_cast<size_t>(n) * 8 + 64);
  std::vector<size_t> cuts;  // word ends
  for (size_t i = 1; i < prose.size(); ++i) {
    if (prose[i] == ' ') cuts.push_back(i);
  }
  auto count = [&](size_t cut) -> Result<int64_t, RunError> {
    auto tokens = Tokenize(ctx, prose.substr(0, cut));
    if (!tokens) return tokens.error();
    return static_cast<int64_t>(tokens->size());
  };
  size_t lo = 0, hi = cuts.size() - 1;
  auto c = count(cuts[hi]);
  if (!c) return c.error();
  if (*c < n) return Failed(fmt::format("could not build a {}-token prompt", n));
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    c = count(cuts[mid]);
    if (!c) return c.error();
    if (*c >= n) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const std::string text = prose.substr(0, cuts[lo]);
  c = count(cuts[lo]);
  if (!c) return c.error();
  memo[key] = text;
  return text;
}

Result<Request, RunError> TtftRequest(const RequestInput& in) {
  auto text = PromptOfTokens(in.ctx, in.test.n, in.memo);
  if (!text) return text.error();
  protocol::TtftRequest r;
  r.text = *text;
  r.n_batch = in.n_batch;
  r.add_special = true;
  Request out{r.ToJson(), {{"n_prompt_tokens_target", in.test.n}, {"text_chars", text->size()}}};
  if (in.n_batch) out.facts["n_batch"] = *in.n_batch;
  return out;
}

void TtftDerive(const DeriveInput& in, SpeedRows& out) {
  const store::SampleRecord& s = in.sample;
  if (!AddStreams(s, /*decode=*/false, out)) {
    if (auto v = TtftMs(s.raw)) out.rows.Add(s.test, "ttft", "ms", *v);
  }
  AddEnergy(s, TgTokensPerSecond(s.raw), out);
}

std::optional<double> FirstTokenSeconds(const json& raw) {
  const std::optional<int64_t> start = json_read::Int(raw, "t_start_ns");
  const std::optional<int64_t> first = json_read::Int(raw, "t_first_token_ns");
  if (!start || !first || *first < *start) return std::nullopt;
  return SecondsBetween(*start, *first);
}

std::vector<metrics::FigureDef> TtftFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind;
  constexpr auto kSpeed = FigureKind::kSpeed;
  return metrics::FigureList()
      .Add("ttft@<P>", {"ttft"}, "ms", kSpeed, Better::kLower)
      .Headline()
      .Score(metrics::ScoreGroup::kEfficiency, "<test>", Better::kLower)
      .Add("ttft@<P>", {"e2e", "server_prompt_ms"}, "ms", kSpeed, Better::kLower)
      .Add("ttft@<P>", {"serving_overhead"}, "ms", kSpeed, Better::kLower, ValueKind::kSigned)
      .Add("ttft@<P>", {"failed_streams", "token_count_mismatches"}, "streams", kSpeed,
           Better::kNotJudged)
      .CountsFailures()
      .Add("ttft@<P>", {"streams"}, "streams", kSpeed, Better::kNotJudged)
      .Take();
}

}  // namespace

TestKind TtftKind() {
  TestKind k;
  k.name = "ttft";
  k.form = "ttft@<P>";
  k.example = "ttft@256";
  k.parse = [](std::string_view text) { return TokensAfter(text, "ttft@", "ttft", "ttft@"); };
  k.ops = {protocol::op::kTtft, protocol::op::kTokenize};
  k.needs_vocab = false;  // a text prompt
  // A text of P tokens can tokenize to a few more at a word boundary: keep a margin.
  k.context_need = [](const config::TestSpec& t, int64_t) { return int64_t(t.n) + 16; };
  k.units = [](const config::TestSpec& t) { return double(t.n); };
  k.request = TtftRequest;
  k.check = [](const json& reply) { return Checked(protocol::TtftResponse::FromJson(reply)); };
  k.seconds = FirstTokenSeconds;
  k.derive = TtftDerive;
  k.figures = TtftFigures;
  return k;
}

}  // namespace pipette::workload::speed
