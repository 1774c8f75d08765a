// What earlier requests took: the history of measured phases that time estimates start from.
#pragma once

#include <map>
#include <string>
#include <utility>

namespace pipette::estimate {

// Kinds of work, each measured in its own unit: "load" (per load), "pp", "tg", "ttft" (per token
// of the test), "ppl", "kld" (per token of a scored chunk), "gen", "mc" (per item).
//
// Per (cell key, test) the median seconds of one request; per kind the median seconds per unit,
// the fallback for a cell never measured before. metrics::BuildHistory makes it from the store.
struct History {
  std::map<std::pair<std::string, std::string>, double> seconds_per_request;
  std::map<std::string, double> seconds_per_unit;
};

// Work on another device is its own kind, learning its own rate: "tg@board" (an emulated board
// decodes 20x slower than this machine). `device` "" or "local": this machine, the plain kind.
std::string DeviceKind(const std::string& kind, const std::string& device);
// The device a cell key names (plan::Cell::Key ends in ",device=NAME" off this machine); "" for
// this machine.
std::string DeviceOfKey(const std::string& cell_key);
// The kind and device of a DeviceKind ("tg@board" -> {"tg", "board"}; "tg" -> {"tg", ""}).
std::pair<std::string, std::string> SplitDeviceKind(const std::string& kind);

// One stored sample as a measured request (metrics::RowDeriver::Timed): its kind of work, the
// units of that kind it did, and the seconds it took.
struct Measured {
  std::string kind;
  double units = 0;
  double seconds = 0;
};

// How many of the store's most recent samples a history is made from.
inline constexpr int kHistorySamples = 20000;

}  // namespace pipette::estimate
