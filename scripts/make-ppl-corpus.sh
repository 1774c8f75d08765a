#!/usr/bin/env bash
# Regenerates datasets/ppl/devils-dictionary.txt, Pipette's perplexity corpus, from a pinned
# Debian package: dict-devil 1.0-13.1 ("The Devil's Dictionary" by Ambrose Bierce, 1911,
# public domain). The committed text file is what the tests and benchmarks use; this script
# only documents (and lets anyone re-check) how it was made. Output is byte-for-byte
# deterministic for the pinned .deb.
#
# Usage: scripts/make-ppl-corpus.sh [--deb PATH/TO/dict-devil_1.0-13.1_all.deb] [OUTPUT]
#   Without --deb the .deb is fetched with `apt-get download dict-devil=1.0-13.1` (needs a
#   Debian apt source that still carries that version, e.g. bookworm; run apt-get update first).
#   OUTPUT defaults to datasets/ppl/devils-dictionary.txt in the repository.
# Needs: apt-get (unless --deb), dpkg-deb, gzip (zcat), python3, sha256sum.
#
# Cleaning, in order (see datasets/ppl/README.md):
#   1. Decompress usr/share/dictd/devil.dict.dz (dictzip is gzip-compatible).
#   2. Keep only Bierce's text: from the "PREFACE" heading up to (not including) the dictfmt
#      "00-database-alphabet" entry at the end. This drops the dictfmt metadata entries and
#      the 1993 Internet Wiretap e-text header.
#   3. Remove markup: "_" emphasis markers (e.g. _Dies Irae_ -> Dies Irae) and the "{...}"
#      cross-reference braces the Debian packaging added (See {LOGIC} -> See LOGIC).
#   4. Reflow: blocks are separated by blank lines. Inside a block, a line that starts with
#      whitespace begins a new line of output (verse lines, indented paragraph starts,
#      attributions); a line at the left margin continues the current one (prose hard wraps
#      are joined with one space; a word broken after a single "-" is joined without a space).
#   5. Whitespace: leading/trailing spaces stripped from each line, runs of spaces collapsed
#      to one, exactly one blank line between blocks, LF line endings, one final newline.
#   The text itself (spelling, "--" dashes, [sic] notes, verse) is otherwise left as is.
set -euo pipefail

PKG=dict-devil
VERSION=1.0-13.1
DEB_SHA256=6a535684def2a1f70cd42da16d12d43f0e9dc3e54e4a329178eebab3170e3154

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEB=""
if [ "${1:-}" = "--deb" ]; then
  DEB=$(realpath "$2"); shift 2
fi
OUTPUT=${1:-$ROOT/datasets/ppl/devils-dictionary.txt}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ -z "$DEB" ]; then
  (cd "$TMP" && apt-get download -q "$PKG=$VERSION" >&2)
  DEB=$(ls "$TMP"/${PKG}_*.deb)
fi
echo "$DEB_SHA256  $DEB" | sha256sum -c --quiet - || {
  echo "error: $DEB does not have the pinned SHA-256 $DEB_SHA256" >&2; exit 1; }

dpkg-deb -x "$DEB" "$TMP/x"
zcat "$TMP/x/usr/share/dictd/devil.dict.dz" > "$TMP/devil.dict"
mkdir -p "$(dirname "$OUTPUT")"

python3 - "$TMP/devil.dict" "$OUTPUT" <<'PY'
import re, sys

src, dst = sys.argv[1], sys.argv[2]
raw = open(src, encoding="utf-8").read().replace("\r\n", "\n").replace("\r", "\n")
lines = raw.split("\n")

# 2. Bierce's text only: from the PREFACE heading to the trailing dictfmt alphabet entry.
start = next(i for i, l in enumerate(lines) if l.strip() == "PREFACE")
end = next(i for i, l in enumerate(lines) if l.strip() == "abcdefghijklmnopqrstuvwxyz")
lines = lines[start:end]

# 3. Markup.
lines = [l.replace("_", "") for l in lines]
lines = [re.sub(r"\{([^{}]*)\}", r"\1", l) for l in lines]

# 4. Reflow, block by block.
blocks, cur = [], []
for l in lines:
    if l.strip():
        cur.append(l.rstrip())
    elif cur:
        blocks.append(cur); cur = []
if cur:
    blocks.append(cur)

def join(a, b):
    if a.endswith("-") and not a.endswith("--"):
        return a + b
    return a + " " + b

out_blocks = []
for block in blocks:
    out = []
    for l in block:
        text = re.sub(r" {2,}", " ", l.strip())
        if not out or l[0].isspace():
            out.append(text)
        else:
            out[-1] = join(out[-1], text)
    out_blocks.append("\n".join(out))

# 5. One blank line between blocks, LF endings, final newline.
text = "\n\n".join(out_blocks) + "\n"
text.encode("ascii")  # the source is plain ASCII; fail loudly if that ever changes
open(dst, "w", encoding="utf-8", newline="\n").write(text)
PY

echo "wrote $OUTPUT" >&2
wc -c -l -w "$OUTPUT" >&2
sha256sum "$OUTPUT" >&2
