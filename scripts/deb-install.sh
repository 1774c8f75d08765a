# Sourced by scripts/setup.sh, scripts/fuzz-build.sh and scripts/build-worker.sh: deb_install
# PKG... installs the Debian packages not installed yet (through sudo when not root); `say` is the
# caller's.

# The libraries pipette_core links (every build of it: setup's and the fuzz build's).
CORE_LIB_PACKAGES=(libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev
  libssl-dev zlib1g-dev libcpp-httplib-dev libre2-dev pkg-config)
deb_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  say "installing Debian packages: ${missing[*]}"
  local SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
}
