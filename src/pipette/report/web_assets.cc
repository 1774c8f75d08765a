#include "pipette/report/web_assets.h"

// The files themselves, included by the assembler (CMakeLists.txt gives PIPETTE_WEB_DIR and the
// versions, and rebuilds this file when one of the files changes).
#define PIPETTE_EMBED(symbol, path)                                                         \
  __asm__(".section .rodata\n.global " #symbol "\n" #symbol ":\n.incbin \"" PIPETTE_WEB_DIR \
          "/" path "\"\n.global " #symbol "_end\n" #symbol "_end:\n.previous\n")

PIPETTE_EMBED(pipette_vega_js, "vega/build/vega.min.js");
PIPETTE_EMBED(pipette_vega_lite_js, "vega-lite/build/vega-lite.min.js");
PIPETTE_EMBED(pipette_vega_embed_js, "vega-embed/build/vega-embed.min.js");

extern "C" const char pipette_vega_js[], pipette_vega_js_end[];
extern "C" const char pipette_vega_lite_js[], pipette_vega_lite_js_end[];
extern "C" const char pipette_vega_embed_js[], pipette_vega_embed_js_end[];

namespace pipette::report {

const std::vector<WebLibrary>& WebLibraries() {
  static const std::vector<WebLibrary> kLibraries = {
      {"vega",
       PIPETTE_VEGA_VERSION,
       {pipette_vega_js, size_t(pipette_vega_js_end - pipette_vega_js)}},
      {"vega-lite",
       PIPETTE_VEGA_LITE_VERSION,
       {pipette_vega_lite_js, size_t(pipette_vega_lite_js_end - pipette_vega_lite_js)}},
      {"vega-embed",
       PIPETTE_VEGA_EMBED_VERSION,
       {pipette_vega_embed_js, size_t(pipette_vega_embed_js_end - pipette_vega_embed_js)}},
  };
  return kLibraries;
}

}  // namespace pipette::report
