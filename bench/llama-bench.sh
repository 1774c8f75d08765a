#!/usr/bin/env bash
# Speed agreement with llama-bench (results go in BENCHMARKS.md, "Agreement with llama-bench").
# build/bin/llama-bench and build/pipette, the same pinned llama.cpp, on the bundled models:
# pp128 and tg32, (a) at equal explicit settings (threads 1 and 2, n_batch 2048, n_ubatch 512,
# f16 caches, flash attention on) and (b) at each tool's defaults (nothing set). Each tool runs
# REPS repetitions (after its one warm-up) per round, ROUNDS rounds, the tools alternating
# within each round so that both share the machine's noise. Prints the medians over all
# samples (llama-bench's samples_ts, Pipette's throughput samples) and Pipette / llama-bench.
#   bench/llama-bench.sh [ROUNDS] [REPS] [MODEL...]    (defaults: 3 5 smollm2 gemma3)
# AGREE_DIR=dir keeps the raw outputs there (else a temporary folder, removed at the end);
# AGREE_TABLE_ONLY=1 prints the table from an AGREE_DIR that holds them, measuring nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
reps=${2:-5}
shift $(($# > 2 ? 2 : $#))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(smollm2-135m-instruct-q4_1 gemma3-270m-q4_k_m)
declare -A files=([smollm2-135m-instruct-q4_1]=models/SmolLM2-135M-Instruct.Q4_1.gguf
                  [gemma3-270m-q4_k_m]=models/gemma-3-270m-q4_k_m.gguf)
if [ -n "${AGREE_DIR:-}" ]; then
  tmp=$AGREE_DIR
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

# Settings: "explicit T" sets everything at T threads; "defaults" sets nothing.
settings=("explicit 1" "explicit 2" "defaults")

bench_args() {  # llama-bench flags for a setting
  case "$1" in
    explicit) echo "-t $2 -b 2048 -ub 512 -ctk f16 -ctv f16 -fa on" ;;
    defaults) echo "" ;;
  esac
}
pipette_params() {  # the experiment's params: block for a setting
  case "$1" in
    explicit) printf 'params:\n  threads: %s\n  n_batch: 2048\n  n_ubatch: 512\n  type_k: f16\n  type_v: f16\n  flash_attn: on\n' "$2" ;;
    defaults) echo "" ;;
  esac
}

for model in "${models[@]}"; do
  [ -z "${AGREE_TABLE_ONLY:-}" ] || break
  file=${files[$model]}
  for s in "${settings[@]}"; do
    read -r kind t <<<"$s"
    tag="$model-$kind${t:+-$t}"
    { echo "name: agree-$tag"; echo "models: [$model]"; pipette_params "$kind" "$t"
      echo "tests: [pp128, tg32]"; echo "repetitions: $reps"; echo "warmup: 1"; } >"$tmp/$tag.yaml"
    for ((r = 1; r <= rounds; r++)); do
      # Alternate which tool goes first, round by round.
      for tool in $( ((r % 2)) && echo "bench pipette" || echo "pipette bench"); do
        if [ "$tool" = bench ]; then
          # shellcheck disable=SC2046
          build/bin/llama-bench -m "$file" -p 128 -n 32 -r "$reps" $(bench_args "$kind" "$t") \
            -o json 2>/dev/null >"$tmp/$tag-bench-$r.json"
        else
          build/pipette run "$tmp/$tag.yaml" --store "$tmp/$tag.db" --no-bandwidth >/dev/null 2>&1
        fi
      done
    done
    build/pipette report --store "$tmp/$tag.db" --all --format json >"$tmp/$tag-pipette.json"
  done
done

median() { jq -s 'sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                  else (.[length / 2 - 1] + .[length / 2]) / 2 end'; }

echo "| model | setting | test | llama-bench t/s (median) | Pipette t/s (median) | Pipette / llama-bench | per-round ratios (min–max) | n each | threads (bench / Pipette) | flash attn (Pipette) |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
for model in "${models[@]}"; do
  for s in "${settings[@]}"; do
    read -r kind t <<<"$s"
    tag="$model-$kind${t:+-$t}"
    for test in pp128 tg32; do
      if [ "$test" = pp128 ]; then sel='.n_prompt == 128 and .n_gen == 0'; else sel='.n_prompt == 0 and .n_gen == 32'; fi
      b=$(cat "$tmp/$tag"-bench-*.json | jq ".[] | select($sel) | .samples_ts[]" | median)
      nb=$(cat "$tmp/$tag"-bench-*.json | jq ".[] | select($sel) | .samples_ts[]" | wc -l)
      bt=$(cat "$tmp/$tag"-bench-*.json | jq -s -r "[.[][] | select($sel) | .n_threads] | unique | map(tostring) | join(\",\")")
      p=$(jq ".results[] | select(.test == \"$test\" and .metric == \"throughput\") | .samples[]" \
            "$tmp/$tag-pipette.json" | median)
      pt=$(jq -r "[.results[] | select(.test == \"$test\" and .metric == \"throughput\") | .params.threads] | unique | join(\",\")" "$tmp/$tag-pipette.json")
      pf=$(jq -r "[.results[] | select(.test == \"$test\" and .metric == \"throughput\") | .params.flash_attn] | unique | join(\",\")" "$tmp/$tag-pipette.json")
      ratio=$(jq -n "$p / $b * 1000 | round / 1000")
      # Round r's medians side by side (Pipette's runs are in round order): how far one round's
      # ratio moves shows the noise the overall medians carry.
      nr=$(ls "$tmp/$tag"-bench-*.json | wc -l)
      per_round=$(for ((r = 1; r <= nr; r++)); do
        rb=$(jq ".[] | select($sel) | .samples_ts[]" "$tmp/$tag-bench-$r.json" | median)
        rp=$(jq "[.results[] | select(.test == \"$test\" and .metric == \"throughput\")] | sort_by(.run_id) | .[$((r - 1))].samples[]" \
               "$tmp/$tag-pipette.json" | median)
        jq -n "$rp / $rb"
      done | jq -s -r 'map(. * 1000 | round / 1000) | "\(min)–\(max)"')
      printf '| %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s / %s | %s |\n' "$model" "$s" "$test" "$b" "$p" \
        "$ratio" "$per_round" "$nb" "$bt" "$pt" "$pf"
    done
  done
done
