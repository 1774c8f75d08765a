#!/usr/bin/env bash
# The HTML report's chart libraries (vega, vega-lite, vega-embed) and the browser test's driver
# (puppeteer-core), at the exact versions of web/package-lock.json, from the npm registry into
# web/node_modules. The build inlines the libraries into the binary (CMakeLists.txt). Skipped when
# web/node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
if ! command -v npm >/dev/null; then
  . scripts/deb-install.sh
  deb_install nodejs npm
fi
stamp=web/node_modules/.package-lock.sha256
want=$(sha256sum web/package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
say "installing the report's chart libraries from npm (web/package-lock.json)"
# --ignore-scripts: nothing of these packages runs at install time (puppeteer-core downloads no
# browser: the test drives Debian's chromium).
(cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" > "$stamp"
