#!/usr/bin/env bash
# What the HTML report's browser test needs beyond the build: Debian's chromium (driven headless by
# web/check-report.mjs with the puppeteer-core of web/package-lock.json, which scripts/fetch-web.sh
# installs). Skipped when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
. scripts/deb-install.sh
deb_install chromium
