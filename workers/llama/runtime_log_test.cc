#include "runtime_log.h"

#include <gtest/gtest.h>

namespace pipette::llama_worker {
namespace {

// Lines as llama.cpp (the pinned commit) logs them while it creates a context.
constexpr const char* kAutoOn =
    "llama_context: n_batch               = 2048\n"
    "llama_context: flash_attn            = auto\n"
    "resolve_fused_ops: Flash Attention enabled\n"
    "resolve_fused_ops: resolving fused Gated Delta Net support:\n"
    "resolve_fused_ops: fused Gated Delta Net (autoregressive) enabled\n";

TEST(RuntimeLog, AutoResolvedOnFromTheLog) { EXPECT_EQ(FlashAttnFromLog(kAutoOn, "auto"), "on"); }

TEST(RuntimeLog, AutoResolvedOffWhenADeviceCannot) {
  EXPECT_EQ(
      FlashAttnFromLog("llama_context: flash_attn            = auto\n"
                       "resolve_fused_ops: layer 3 is assigned to device CUDA0 but Flash "
                       "Attention is assigned to device CPU (usually due to missing support)\n"
                       "resolve_fused_ops: Flash Attention not supported, set to disabled\n",
                       "auto"),
      "off");
}

TEST(RuntimeLog, QuantizedVCacheTurnsAutoOn) {
  EXPECT_EQ(FlashAttnFromLog("llama_init_from_model: enabling flash_attn since it is required for "
                             "quantized V cache\n",
                             "auto"),
            "on");
}

TEST(RuntimeLog, ForcedOffOverridesOn) {
  EXPECT_EQ(FlashAttnFromLog("llama_init_from_model: flash_attn is not compatible with Grok - "
                             "forcing off\n",
                             "on"),
            "off");
}

TEST(RuntimeLog, NoDecidingLineKeepsTheRequest) {
  EXPECT_EQ(FlashAttnFromLog("", "auto"), "auto");  // unresolved
  EXPECT_EQ(FlashAttnFromLog("llama_context: flash_attn            = enabled\n", "on"), "on");
  EXPECT_EQ(FlashAttnFromLog("llama_context: flash_attn            = disabled\n", "off"), "off");
  // Other fused operations' lines say nothing about flash attention.
  EXPECT_EQ(FlashAttnFromLog("resolve_fused_ops: fused Gated Delta Net (chunked) not supported, "
                             "set to disabled\n",
                             "auto"),
            "auto");
}

TEST(RuntimeLog, TheLastDecidingLineWins) {
  EXPECT_EQ(FlashAttnFromLog(std::string(kAutoOn) +
                                 "resolve_fused_ops: Flash Attention not supported, set to "
                                 "disabled\n",
                             "auto"),
            "off");
}

TEST(RuntimeLog, LoadMode) {
  EXPECT_EQ(LoadModeFromLog("load_tensors: loading model tensors, this can take a while... "
                            "(load_mode = mmap)\n"),
            "mmap");
  EXPECT_EQ(LoadModeFromLog("x (load_mode = none)\n"), "none");
  EXPECT_EQ(LoadModeFromLog("nothing here\n"), "");
  EXPECT_EQ(LoadModeFromLog("(load_mode = mmap"), "");
}

TEST(RuntimeLog, SwaCacheCells) {
  // As src/llama-kv-cache-iswa.cpp logs them for a model with sliding-window layers (Gemma 3):
  // full-size with swa_full, the window plus a micro-batch, padded to 256, without.
  const std::string base =
      "llama_kv_cache_iswa: creating non-SWA KV cache, size = 2048 cells\n"
      "llama_kv_cache:        CPU KV buffer size =     6.00 MiB\n";
  EXPECT_EQ(SwaCacheCellsFromLog(base + "llama_kv_cache_iswa: creating     SWA KV cache, size = "
                                        "1024 cells\n"),
            1024);
  EXPECT_EQ(
      SwaCacheCellsFromLog("llama_kv_cache_iswa: using full-size SWA cache (ref: x)\n" + base +
                           "llama_kv_cache_iswa: creating     SWA KV cache, size = 2048 "
                           "cells\n"),
      2048);
  // A model without such layers has one cache, not this line; "non-SWA" is not it.
  EXPECT_EQ(SwaCacheCellsFromLog(base), std::nullopt);
  EXPECT_EQ(SwaCacheCellsFromLog("llama_kv_cache: size =   24.00 MiB (  256 cells, 30 layers)\n"),
            std::nullopt);
  EXPECT_EQ(SwaCacheCellsFromLog("creating     SWA KV cache, size = x cells\n"), std::nullopt);
}

TEST(RuntimeLog, KvBufferBytes) {
  // Gemma 3 without swa_full: the global layers' cache and the sliding-window layers' own.
  const std::string iswa =
      "llama_kv_cache_iswa: creating non-SWA KV cache, size = 2048 cells\n"
      "llama_kv_cache:        CPU KV buffer size =     6.00 MiB\n"
      "llama_kv_cache: size =    6.00 MiB (  2048 cells,   3 layers,  1/1 seqs)\n"
      "llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells\n"
      "llama_kv_cache:        CPU KV buffer size =    15.00 MiB\n";
  EXPECT_EQ(KvBufferBytesFromLog(iswa), int64_t{21} << 20);
  EXPECT_EQ(KvBufferBytesFromLog("llama_kv_cache:        CPU KV buffer size =     0.75 MiB\n"),
            int64_t{786432});
  EXPECT_EQ(KvBufferBytesFromLog("nothing here\n"), std::nullopt);
  EXPECT_EQ(KvBufferBytesFromLog("llama_kv_cache: CPU KV buffer size = lots\n"), std::nullopt);
  EXPECT_EQ(KvBufferBytesFromLog("llama_kv_cache: CPU KV buffer size = 6.00 GiB\n"), std::nullopt);
}

}  // namespace
}  // namespace pipette::llama_worker
