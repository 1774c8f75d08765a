// The chart libraries the HTML report inlines: vega, vega-lite and vega-embed, built into the
// binary from web/node_modules (versions pinned in web/package-lock.json, installed with `npm ci`
// by scripts/fetch-web.sh), so that a report opens offline and Pipette needs nothing at run time.
#pragma once

#include <string_view>
#include <vector>

namespace pipette::report {

struct WebLibrary {
  std::string_view name;     // the npm package: "vega"
  std::string_view version;  // its pinned version: "6.2.0"
  std::string_view script;   // its minified UMD build, whole
};

// In the order a page loads them (vega-lite needs vega; vega-embed both).
const std::vector<WebLibrary>& WebLibraries();

}  // namespace pipette::report
