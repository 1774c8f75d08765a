-- pipette.report schema_version 8, generated_at 2026-11-29T12:00:00Z, pipette 0.1.0
BEGIN TRANSACTION;
CREATE TABLE IF NOT EXISTS "results" (
  "run_id" INTEGER,
  "cell" INTEGER,
  "cell_status" TEXT,
  "untrusted" TEXT,
  "model" TEXT,
  "model_sha256" TEXT,
  "model_file_size" INTEGER, -- bytes
  "n_params" INTEGER,
  "quant" TEXT,
  "quant_origin" TEXT,
  "base_model" TEXT,
  "runtime" TEXT,
  "runtime_version" TEXT,
  "runtime_build" TEXT, -- JSON
  "device" TEXT,
  "device_id" TEXT,
  "emulated" INTEGER, -- 0 or 1
  "emulated_tier" INTEGER, -- 0 or 1
  "params" TEXT, -- JSON
  "params_set" TEXT, -- JSON
  "test" TEXT,
  "metric" TEXT,
  "unit" TEXT,
  "value" REAL,
  "std_error" REAL,
  "ci_low" REAL,
  "ci_high" REAL,
  "subset" TEXT,
  "na" TEXT,
  "dataset" TEXT,
  "dataset_sha256" TEXT,
  "chat_template" TEXT, -- JSON
  "median" REAL,
  "min" REAL,
  "max" REAL,
  "mean" REAL,
  "stddev" REAL,
  "cv" REAL,
  "n" INTEGER,
  "noisy" INTEGER, -- 0 or 1
  "samples" TEXT -- JSON array of numbers
);
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'pp64', 'throughput', 't/s', 1000, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, 1000, 990, 1010, 1000, 10, 0.01, 3, 0, '[1000.0,1010.0,990.0]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'tg16', 'throughput', 't/s', 50, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, 50, 40, 60, 50, 10, 0.2, 3, 1, '[50.0,60.0,40.0]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'tg16', 'itl_p50', 'ms', 20, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, 20, 16.5, 25, 20.5, 4.272001872658765, 0.20839033525164707, 3, 1, '[20.0,16.5,25.0]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'ttft@32', 'ttft', 'ms', 12.5, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, 12.5, 12.25, 12.75, 12.5, 0.25, 0.02, 3, 0, '[12.5,12.25,12.75]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'ppl', 'ppl', '', 18.125, 0.75, NULL, NULL, '', NULL, 'datasets/ppl/corpus.txt', 'd00d', NULL, 18.375, 17.5, 19.25, 18.375, 1.2374368670764582, 0.06734350297014738, 2, 1, '[17.5,19.25]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'mc', 'acc', 'fraction', 0.75, NULL, 0.30063, 0.95441, '', NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 4, 0, '[1.0,0.0,1.0,1.0]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'gen', 'all', '', NULL, NULL, NULL, NULL, '', 'runtime ''llama.cpp'' does not serve op ''chat''', NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, '[]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 1, 'ok', NULL, 'smol', 'b179c952', 98362432, 134515008, 'Q4_1', '', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":1}', '{}', 'memory', 'peak_rss', 'bytes', 150000000, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, 150000000, 150000000, 150000000, 150000000, 0, 0, 1, 0, '[150000000.0]');
INSERT INTO "results" ("run_id", "cell", "cell_status", "untrusted", "model", "model_sha256", "model_file_size", "n_params", "quant", "quant_origin", "base_model", "runtime", "runtime_version", "runtime_build", "device", "device_id", "emulated", "emulated_tier", "params", "params_set", "test", "metric", "unit", "value", "std_error", "ci_low", "ci_high", "subset", "na", "dataset", "dataset_sha256", "chat_template", "median", "min", "max", "mean", "stddev", "cv", "n", "noisy", "samples") VALUES (1, 2, 'failed', 'measured while 1 other Pipette measured on the machine (pid 4242 pipette-worker-llama)', 'smol:Q4_K_M', 'b179c952', 98362432, 134515008, 'Q4_K_M', 're-quantized from Q4_1', 'smol', 'llama.cpp', '0.3.36', '{"llama_cpp_commit":"0c1e570"}', 'Test CPU', 'fp01', 0, 0, '{"n_batch":512,"threads":2}', '{}', 'pp64', 'throughput', 't/s', 1805, NULL, NULL, NULL, '', NULL, NULL, NULL, NULL, 1805, 1800, 1810, 1805, 7.0710678118654755, 0.0039174890924462465, 2, 0, '[1800.0,1810.0]');
COMMIT;
