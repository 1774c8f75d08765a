// What quantize: and convert: share at run time: the models a maker made (or found in its
// cache), given to the cells that measure them.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "pipette/plan/plan.h"
#include "pipette/util/result.h"

namespace pipette::app {

// `results[i]` is the model named `names[i]` (a Made with `cached` and `provenance`): each cell
// of it gets the provenance, or the reason it could not be made (its cells then fail with it).
// Says how many came from the cache in `cache_dir` ("3 variant(s) from the cache in ...").
template <class Made>
void GiveCellsTheirModels(const std::vector<std::string>& names,
                          const std::vector<Result<Made>>& results, const std::string& what,
                          const std::string& cache_dir, std::vector<plan::Cell>* cells) {
  std::map<std::string, const Result<Made>*> by_name;
  int cached = 0;
  for (size_t i = 0; i < names.size() && i < results.size(); ++i) {
    by_name[names[i]] = &results[i];
    cached += results[i].ok() && results[i]->cached;
  }
  if (cached > 0) fmt::print(stderr, "{} {}(s) from the cache in {}\n", cached, what, cache_dir);
  for (auto& c : *cells) {
    auto it = by_name.find(c.model.name);
    if (it == by_name.end()) continue;
    if (it->second->ok()) {
      c.model.provenance = (*it->second)->provenance;
    } else {
      c.model.unavailable = it->second->error().message;
    }
  }
}

}  // namespace pipette::app
