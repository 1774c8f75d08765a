// Makes quantized variants with the runtime's own quantizer (the llama.cpp worker's `quantize`
// request, which calls llama_model_quantize) and keeps them in a cache keyed by what defines
// their bytes. A variant that cannot be made does not stop the others.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/env/process.h"
#include "pipette/quant/variant.h"
#include "pipette/util/result.h"

namespace pipette::quant {

struct MakeJob {
  VariantSpec spec;
  std::string output;   // where the variant lives in the cache
  std::string imatrix;  // where its importance matrix lives (when spec.imatrix)
};

// A variant that is there: made now or found in the cache.
struct MadeVariant {
  bool cached = false;        // found in the cache, not made now
  nlohmann::json provenance;  // VariantSpec::Provenance() plus how and when it was made
};

struct MakerOptions {
  std::string worker;  // the llama.cpp worker program
  int n_threads = 2;
  double timeout_s = 600;  // per request
  // Progress lines for people, with a time-left estimate.
  std::function<void(const std::string&)> say;
  // Set (from a signal handler) to stop before the next variant.
  const std::atomic<bool>* stop = nullptr;
  // Who makes the temporary files, and whether their makers still run (nullptr: this machine's).
  const env::ProcessTable* processes = nullptr;
};

// The temporary name a maker writes a file under before it renames it into place:
// "<path>.<pid>-<start ticks>-<random>.part", so a later maker can tell whether its maker is gone.
std::string PartName(const std::string& path, const env::ProcessIdentity& maker);

// A temporary file (or folder) next to `path` that no other process will pick (PartName), with
// a note of its maker beside it (`<part>.owner`: host, boot, pid namespace, pid, start time) for
// as long as it lives, so that a later maker anywhere can tell whether its maker is gone. Removed
// when it goes away unless it was renamed into place. `processes`: nullptr for this machine's.
class PartFile {
 public:
  PartFile(const std::string& path, const env::ProcessTable* processes);
  ~PartFile();
  PartFile(const PartFile&) = delete;
  PartFile& operator=(const PartFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes a small file of the cache (a variant's provenance, a part's owner note) through a
// temporary file (util/files.h WriteFileAtomically); the temporary files a killed maker left for
// the same name are removed once their process is gone. `processes`: nullptr for this machine's.
Status WriteCacheFile(const std::string& path, const std::string& content,
                      const env::ProcessTable* processes);

// Removes the `.part` files (or folders) in `dir` whose maker is gone (a killed run), with the
// `.part.owner` note that names their maker; those of a maker still running, or on another host or
// in another container, are left alone. Returns the paths removed.
std::vector<std::string> RemoveAbandonedParts(const std::string& dir,
                                              const env::ProcessTable& processes);

// The runtime that makes variants, as its worker's `hello` names it: a cached variant made by
// another build of the quantizer is made again.
struct QuantizerIdentity {
  std::string runtime_version;
  std::string commit;
};
// Starts the worker on `device` and asks `hello`.
Result<QuantizerIdentity> AskQuantizer(device::Device& device, const std::string& worker);

// The provenance recorded next to a cached variant (`<output>.json`), when the file is there
// and was made for this very definition by this quantizer; nullopt otherwise.
std::optional<nlohmann::json> CachedProvenance(const MakeJob& job, const QuantizerIdentity& by);

// One result per job, in order: the variant, or why it could not be made. Jobs with the same
// output are made once, by the quantizer's worker started on `device`.
std::vector<Result<MadeVariant>> MakeVariants(const std::vector<MakeJob>& jobs,
                                              device::Device& device, const MakerOptions& options);

}  // namespace pipette::quant
