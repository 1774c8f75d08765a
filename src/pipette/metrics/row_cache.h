// The derived-results cache: each finished cell's rows (DeriveRows' output for the cell), stored
// by `pipette run` when the cell finishes, so that `pipette report` need not parse the cell's raw
// samples again. The raw samples stay in the store; the cache is only ever a shortcut to what
// DeriveRows gives from them, and a report derives live every cell whose cache is missing, stale
// or unreadable (docs/internals.md, "The derived-results cache").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::metrics {

// The version of derivation the cached rows were made by. Bump it in every change that can
// change a row DeriveRows gives from stored samples (derive.cc, a workload's rows, stats/,
// quality/, the facts a row takes from its cell) or the compact form below: rows cached under
// another version are never used, every report derives those cells live again.
// 5: no density from unreadable counts; 6: a cell's speed rows all before its load, memory and
// model rows (the speed workload derives them; a speed figure first seen after the memory reading,
// at a later --interleave visit or in an endpoint's stream counts, came after peak_rss before).
inline constexpr int64_t kDerivationVersion = 6;

// Whether a cell's rows depend on its own samples only (and on the load sample of the cell whose
// model load served it), as each workload says (RowDeriver::ReadsOtherCells: kld and divergence
// read a reference cell's samples): such cells are never cached, and a report that derives one
// live reads the samples of every cell of the run.
bool ReadsOtherCells(const std::vector<store::SampleRecord>& samples, const RowDerivers& derivers);
// Whether a cell's rows are cached when it finishes: it reads no other cell and every workload
// allows it (RowDeriver::RowsCacheable: mc's per-item results come from the samples themselves).
bool Cacheable(const CellSamples& cell, const RowDerivers& derivers);

// The compact text of one cell's rows (all rows of one cell): each row's figures, once the
// params_set they share, none of the other facts the rows take from their cell (CellFacts).
std::string EncodeCellRows(const std::vector<ResultRow>& rows);
// Those rows back, all sharing `facts`; nullopt when the text is not what EncodeCellRows writes
// (a corrupt or hand-edited row).
std::optional<std::vector<ResultRow>> DecodeCellRows(std::string_view text,
                                                     std::shared_ptr<const CellFacts> facts);

// Derives a finished cell's rows from its stored samples and stores them with what they came
// from (the runner calls it when a cell ends: ok, failed or interrupted). Stores nothing for a
// cell that is not Cacheable. Errors are the store's.
Status StoreDerivedRows(store::Store& store, const store::CellRecord& cell,
                        const RowDerivers& derivers);

// A cell's cached rows, when they are current: the same kDerivationVersion, the cell's samples
// and its load cell's (which must be of the same run) as they were when stored (`counts`: the
// run's store::Store::SampleCountsOfRun), and readable. nullopt: derive the cell live.
std::optional<std::vector<ResultRow>> CachedRows(
    const store::DerivedRecord& cached, const std::map<int64_t, store::SampleCount>& counts,
    const store::RunRecord& run, const store::EnvironmentRecord& env,
    const store::CellRecord& cell);

}  // namespace pipette::metrics
