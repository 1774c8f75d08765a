#include "pipette/plan/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "pipette/runtime/registry.h"
#include "pipette/util/strings.h"

namespace pipette::plan {
namespace {

// Whether `runtime` gets cells on `device`: this machine runs every runtime; a tier of it every
// runtime whose worker it starts (an endpoint's server is not in the tier's cgroups); another
// device the runtimes whose worker is a program built for it.
bool RunsOn(const config::DeviceSpec& device, const config::RuntimeSpec& runtime,
            const runtime::Runtime* entry) {
  if (device.IsLocal()) return true;
  if (device.kind == "local") return !runtime.endpoint;
  return entry && entry->runs_on_devices;
}

// What --only calls a parameter the experiment leaves to the runtime.
constexpr const char* kUnset = "default";

using Dim = std::pair<std::string, std::vector<std::string>>;

// Odometer over the dimensions: the last one turns fastest. False when it wraps around.
bool Advance(std::vector<size_t>& idx, const std::vector<const Dim*>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++idx[d] < dims[d]->second.size()) return true;
    idx[d] = 0;
  }
  return false;
}

std::string WhereParam(const config::Experiment& ex, const std::string& name) {
  auto it = ex.param_lines.find(name);
  if (it == ex.param_lines.end()) return ex.path;
  return fmt::format("{}:{}", ex.path, it->second);
}

// Tokens the workloads need at each depth, computed once per depth (not per cell).
class NeedsByDepth {
 public:
  NeedsByDepth(const config::Experiment& ex, const ContextNeeds& needs) : ex_(ex), needs_(needs) {}
  int64_t At(int64_t depth) {
    auto [it, fresh] = need_.emplace(depth, 0);
    if (fresh) it->second = needs_.tokens(ex_, depth);
    return it->second;
  }
  // What needs it, for a message.
  std::string What(int64_t depth) const { return needs_.what(ex_, depth); }

 private:
  const config::Experiment& ex_;
  const ContextNeeds& needs_;
  std::map<int64_t, int64_t> need_;
};

// n_ctx: 0 means just enough for the cell's tests; then the runtime's rule resolves the cell
// (runtime/runtime.h: llama.cpp rounds n_ctx up to a multiple of 256 and clamps the batches
// to it), so the stored values are the ones that run. `changed` gets the parameters the rule
// changed.
Status ResolveContext(const config::Experiment& ex, const runtime::Runtime* rt, NeedsByDepth& needs,
                      Cell& c, std::vector<std::string>* changed) {
  const int64_t depth = c.IntParam("depth");
  const int64_t need = needs.At(depth);
  int64_t n_ctx = c.IntParam("n_ctx");
  const bool sized = n_ctx == 0;  // sized for the tests, not set
  if (sized) {
    n_ctx = need;
  } else if (n_ctx < need) {
    return InputError(fmt::format(
        "{}: n_ctx {} is too small for the tests (they need {} tokens at depth {}, for {}): "
        "raise n_ctx or leave it out (0 = just enough)",
        WhereParam(ex, "n_ctx"), n_ctx, need, depth, needs.What(depth)));
  }
  if (c.model.n_ctx_train > 0 && n_ctx > c.model.n_ctx_train) {
    return InputError(fmt::format(
        "{}: model '{}' was trained for a context of {} tokens; the tests need n_ctx {}{}: use "
        "smaller tests or a model with a longer context",
        WhereParam(ex, "n_ctx"), c.model.name, c.model.n_ctx_train, n_ctx,
        sized ? " (for " + needs.What(depth) + ")" : std::string()));
  }
  if (std::string* v = runtime::FindParam(c.params, "n_ctx")) *v = std::to_string(n_ctx);
  // The runtime's own rule makes the values the ones that run (llama.cpp pads n_ctx).
  if (!rt || !rt->resolve_cell) return {};
  const runtime::CellParams before = c.params;
  rt->resolve_cell(c.params);
  for (size_t i = 0; i < c.params.size() && i < before.size(); ++i) {
    if (c.params[i].second != before[i].second) changed->push_back(c.params[i].first);
  }
  return {};
}

}  // namespace

const std::string& Cell::Param(const std::string& name) const {
  static const std::string kNone;
  const std::string* v = runtime::FindParam(params, name);
  return v ? *v : kNone;
}

bool Cell::HasParam(const std::string& name) const {
  return runtime::FindParam(params, name) != nullptr;
}

int64_t Cell::IntParam(const std::string& name) const {
  return runtime::IntParam(params, name).value_or(0);
}

std::string Cell::ParamOr(const std::string& name, const std::string& fallback) const {
  return HasParam(name) ? Param(name) : fallback;
}

std::string Cell::Key() const {
  std::string key = fmt::format("model={},runtime={}", model.name, runtime.name);
  for (const auto& [k, v] : params) key += fmt::format(",{}={}", k, v);
  // Local cells keep the key they had before devices: stores made then resume.
  if (!device.IsLocal()) key += ",device=" + device.name;
  return key;
}

std::string Cell::LoadKey(const runtime::ParamRegistry& registry) const {
  std::string key =
      fmt::format("{}|{}|{}|{}", device.name, model.path, runtime.name, runtime.worker);
  for (const auto& [k, v] : params) {
    const runtime::ParamDef* def = registry.Find(k);
    if (def && def->scope == runtime::ParamScope::kLoad) key += fmt::format("|{}={}", k, v);
  }
  return key;
}

Result<std::vector<Cell>> Expand(const config::Experiment& ex,
                                 const runtime::RuntimeRegistry& runtimes,
                                 const ContextNeeds& needs) {
  // Without both, every cell would be sized for no test at all: a caller's mistake, said so.
  if (!needs.tokens || !needs.what) {
    return RuntimeError("plan::Expand: the context needs must give both tokens and what");
  }
  const runtime::ParamRegistry& registry = runtimes.Params();
  // Dimension order, slowest first: load-scope parameters, then the rest in registry order.
  std::vector<const Dim*> ordered;
  for (const auto& p : ex.params) ordered.push_back(&p);
  std::stable_sort(ordered.begin(), ordered.end(), [&](auto* a, auto* b) {
    auto scope = [&](auto* d) {
      const runtime::ParamDef* def = registry.Find(d->first);
      return def ? static_cast<int>(def->scope) : 99;
    };
    return scope(a) < scope(b);
  });
  auto belongs = [&](const Dim* d, const std::string& rt) {
    const runtime::ParamDef* def = registry.Find(d->first);
    return def && def->BelongsTo(rt);
  };

  std::vector<Cell> cells;
  for (const auto& device : ex.devices) {
    for (const auto& model : ex.models) {
      for (const auto& runtime : ex.runtimes) {
        // A model is measured only by the runtimes that load its format (resolve refused one that
        // none of them loads); a format not known ("": made by hand) goes to every runtime.
        const runtime::Runtime* entry = runtimes.Find(runtime.name);
        if (entry && !model.format.empty() && !entry->Accepts(model.format)) continue;
        if (!RunsOn(device, runtime, entry)) continue;  // LeftOut says so
        // Only this runtime's parameters multiply its cells.
        std::vector<const Dim*> dims;
        for (const Dim* d : ordered) {
          if (belongs(d, runtime.name)) dims.push_back(d);
        }
        std::vector<size_t> idx(dims.size(), 0);
        do {
          Cell c;
          c.device = device;
          c.model = model;
          c.runtime = runtime;
          for (const auto& p : ex.params) {  // registry order for display
            auto d = std::find(dims.begin(), dims.end(), &p);
            if (d == dims.end()) continue;
            c.params.emplace_back(p.first, p.second[idx[static_cast<size_t>(d - dims.begin())]]);
          }
          cells.push_back(std::move(c));
        } while (Advance(idx, dims));
      }
    }
  }

  NeedsByDepth by_depth(ex, needs);
  std::vector<std::vector<std::string>> changed(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    Cell& c = cells[i];
    c.index = static_cast<int>(i);
    c.label = c.model.name;
    if (ex.runtimes.size() > 1) c.label += " " + c.runtime.name;
    if (ex.devices.size() > 1) c.label += " on " + c.device.name;
    for (const auto& p : ex.params) {
      if (p.second.size() > 1 && c.HasParam(p.first)) {
        c.label += fmt::format(" {}={}", p.first, c.Param(p.first));
      }
    }
    const runtime::Runtime* rt = runtimes.Find(c.runtime.name);
    if (auto st = ResolveContext(ex, rt, by_depth, c, &changed[i]); !st) return st.error();
  }
  // The runtime's rule can make two cells the same: measuring one twice would be a silent waste.
  std::map<std::string, int> seen;
  for (const Cell& c : cells) {
    auto [it, fresh] = seen.emplace(c.Key(), c.index);
    if (fresh) continue;
    std::vector<std::string> names = changed[static_cast<size_t>(it->second)];
    for (const std::string& n : changed[static_cast<size_t>(c.index)]) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    // Point at the first changed parameter the file sweeps (else the first changed).
    std::string where = ex.path;
    for (const std::string& n : names) {
      if (ex.param_lines.count(n)) {
        where = WhereParam(ex, n);
        break;
      }
    }
    return InputError(fmt::format(
        "{}: cells {} and {} are the same after runtime '{}' resolves {} ({}): remove the values "
        "that collapse, or raise n_ctx",
        where, it->second + 1, c.index + 1, c.runtime.name, fmt::join(names, ", "), c.label));
  }
  return cells;
}

std::vector<std::string> LeftOut(const config::Experiment& ex,
                                 const runtime::RuntimeRegistry& runtimes) {
  std::vector<std::string> out;
  for (const auto& device : ex.devices) {
    if (device.IsLocal()) continue;
    for (const auto& runtime : ex.runtimes) {
      const runtime::Runtime* entry = runtimes.Find(runtime.name);
      if (RunsOn(device, runtime, entry)) continue;
      out.push_back(fmt::format(
          "runtime '{}' runs only on this machine ({}): it has no cells on device '{}'",
          runtime.name,
          runtime.endpoint
              ? (device.kind == "local" ? "an endpoint's server does not run in the tier"
                                        : "an endpoint is reached from here")
              : "its worker is not a program built for other devices",
          device.name));
    }
  }
  return out;
}

Result<std::vector<Cell>> Narrow(const std::vector<Cell>& cells, const std::string& only,
                                 const runtime::ParamRegistry& registry,
                                 const std::string& reference) {
  auto value_of = [](const Cell& c, const std::string& key) -> std::string {
    if (key == "model") return c.model.name;
    if (key == "runtime") return c.runtime.name;
    if (key == "quant") return c.model.quant;
    if (key == "device") return c.device.name;
    return c.ParamOr(key, kUnset);
  };
  std::vector<std::string> keys = {"model", "runtime", "quant", "device"};
  for (const auto& n : registry.Names()) keys.push_back(n);
  std::vector<Cell> out = cells;
  // The reference's cells that match every term but model, quant and runtime (the reference may
  // be another runtime's: llama.cpp's F32 for a converted model), a parameter its runtime lacks
  // not counting.
  std::vector<Cell> ref;
  for (const Cell& c : cells) {
    if (!reference.empty() && c.model.name == reference) ref.push_back(c);
  }
  size_t start = 0;
  while (start <= only.size()) {
    size_t end = only.find(',', start);
    if (end == std::string::npos) end = only.size();
    const std::string term = only.substr(start, end - start);
    start = end + 1;
    if (term.empty()) continue;
    const size_t eq = term.find('=');
    if (eq == std::string::npos) {
      return InputError(
          fmt::format("--only: '{}' is not key=value (e.g. threads=2,quant=Q4_1)", term));
    }
    const std::string key = term.substr(0, eq), value = term.substr(eq + 1);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return InputError(fmt::format("--only: unknown key '{}'{}", key, DidYouMean(key, keys)));
    }
    std::vector<Cell> kept;
    std::vector<std::string> seen;
    for (const Cell& c : out) {
      const std::string v = value_of(c, key);
      if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
      if (v == value) kept.push_back(c);
    }
    if (kept.empty()) {
      return InputError(
          fmt::format("--only: no cell has {}={} (values: {})", key, value, fmt::join(seen, ", ")));
    }
    out = std::move(kept);
    if (key != "model" && key != "quant" && key != "runtime") {
      std::erase_if(ref, [&](const Cell& c) {
        const std::string v = value_of(c, key);
        return v != value && v != kUnset;
      });
    }
  }
  const bool has_ref =
      std::any_of(out.begin(), out.end(), [&](const Cell& c) { return c.model.name == reference; });
  if (!reference.empty() && !has_ref) out.insert(out.begin(), ref.begin(), ref.end());
  for (size_t i = 0; i < out.size(); ++i) out[i].index = static_cast<int>(i);
  return out;
}

}  // namespace pipette::plan
