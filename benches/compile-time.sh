#!/usr/bin/env bash
# Compile-time benchmark: our `#[tool]` versus rmcp's `#[tool]` + `#[tool_router]`.
#
# Generates two throwaway crates with the same N (default 200) tools, builds
# their dependencies once, then times rebuilds of just the crates themselves
# and prints the ratio ours/rmcp. Target: ours <= 0.80x of rmcp's.
# Run with --help for usage.
set -euo pipefail

TARGET_RATIO="0.80"
RMCP_DESC='rmcp 3.9 #[tool] + #[tool_router]'

usage() {
    cat <<EOF
Usage: benches/compile-time.sh [OPTIONS]

Builds a crate of N tool functions written with our #[tool] (tool-core) and a
crate of the same N tools written with rmcp's #[tool] + #[tool_router], with
all dependencies prebuilt, and prints the ratio of the two crates' own build
times. Target: ours/rmcp <= ${TARGET_RATIO}.

How it measures:
  * Both crates are generated outside the repo, in a scratch directory, and
    built into one shared target dir with the same profile.
  * Warm-up: one 'cargo build' per crate (builds all dependencies).
  * Each timed run: an untimed 'cargo build' (so a changed dependency, e.g. an
    edited tool-core, is never rebuilt inside a timed run), then 'touch
    src/lib.rs' and a timed 'cargo build' that recompiles only that crate.
    Runs of the two crates are interleaved.
  * Times reported: "rustc" = wall time of the crate's own rustc invocation
    (recorded by a RUSTC_WRAPPER; this is the compared figure), and "cargo" =
    wall time of the whole 'cargo build' command (includes cargo's overhead).
  * CARGO_INCREMENTAL=0 for every build, so both sides are full, non-incremental
    rebuilds of the crate.
  * The ratio uses the minimum over the runs (the median is shown as well).

Options:
  --runs N          timed runs per crate (default: 3)
  --tools N         tools per crate (default: 200)
  --release         use the release profile (default: dev)
  -j, --jobs N      cargo/rustc parallelism (default: cargo's default)
  --scratch DIR     scratch directory for the generated crates
                    (default: \${TMPDIR:-/tmp}/toolkit-compile-time); reused
                    across invocations so dependencies stay prebuilt
  --target-dir DIR  shared cargo target dir (default: <scratch>/target)
  --only SIDE       measure only one side: 'ours' or 'rmcp' (no ratio)
  --clean           delete the scratch directory first (forces a cold warm-up)
  --generate-only   generate the two crates and exit
  -h, --help        show this help

Exit status: 0 when the measurement completed (whether or not the target was
met), non-zero on bad usage or when a build fails.
EOF
}

die() {
    echo "compile-time.sh: $*" >&2
    exit 2
}

need_value() {
    [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value (see --help)"
}

need_uint() {
    [[ $2 =~ ^[0-9]+$ && $2 -ge 1 ]] || die "option $1 needs a positive integer, got '$2'"
}

# ---------------------------------------------------------------- arguments --
RUNS=3
TOOLS=200
PROFILE=dev
JOBS=""
SCRATCH="${TMPDIR:-/tmp}/toolkit-compile-time"
TARGET_DIR=""
ONLY=""
CLEAN=0
GENERATE_ONLY=0

while [[ $# -gt 0 ]]; do
    case $1 in
        --runs) need_value "$@"; need_uint "$1" "$2"; RUNS=$2; shift 2 ;;
        --runs=*) RUNS=${1#*=}; need_uint --runs "$RUNS"; shift ;;
        --tools) need_value "$@"; need_uint "$1" "$2"; TOOLS=$2; shift 2 ;;
        --tools=*) TOOLS=${1#*=}; need_uint --tools "$TOOLS"; shift ;;
        --release) PROFILE=release; shift ;;
        -j | --jobs) need_value "$@"; need_uint "$1" "$2"; JOBS=$2; shift 2 ;;
        --jobs=*) JOBS=${1#*=}; need_uint --jobs "$JOBS"; shift ;;
        --scratch) need_value "$@"; SCRATCH=$2; shift 2 ;;
        --scratch=*) SCRATCH=${1#*=}; shift ;;
        --target-dir) need_value "$@"; TARGET_DIR=$2; shift 2 ;;
        --target-dir=*) TARGET_DIR=${1#*=}; shift ;;
        --only) need_value "$@"; ONLY=$2; shift 2 ;;
        --only=*) ONLY=${1#*=}; shift ;;
        --clean) CLEAN=1; shift ;;
        --generate-only) GENERATE_ONLY=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "compile-time.sh: unknown argument '$1'" >&2; echo >&2; usage >&2; exit 2 ;;
    esac
done

case $ONLY in
    "") SIDES=(ours rmcp) ;;
    ours | rmcp) SIDES=("$ONLY") ;;
    *) die "--only takes 'ours' or 'rmcp', got '$ONLY'" ;;
esac

command -v cargo >/dev/null || die "cargo not found in PATH"
command -v python3 >/dev/null || die "python3 not found in PATH (needed by the generator)"
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash >= 5 (for EPOCHREALTIME)"

# ------------------------------------------------------------------- paths --
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
GEN="$SCRIPT_DIR/compile-time/gen.py"
[[ -f $REPO/tool-core/Cargo.toml ]] || die "cannot find tool-core under $REPO"
[[ -f $GEN ]] || die "missing generator $GEN"

mkdir -p -- "$SCRATCH"
SCRATCH=$(cd -- "$SCRATCH" && pwd -P)
case "$SCRATCH/" in
    "$REPO/"*) die "the scratch directory must be outside the repo ($SCRATCH)" ;;
esac
if [[ $CLEAN == 1 ]]; then
    # Only ever delete what this script created.
    rm -rf -- "$SCRATCH/ours" "$SCRATCH/theirs" "$SCRATCH/target" "$SCRATCH/logs" \
        "$SCRATCH/rustc-timer.sh" "$SCRATCH/rust-toolchain.toml"
fi
[[ -n $TARGET_DIR ]] || TARGET_DIR="$SCRATCH/target"
mkdir -p -- "$TARGET_DIR"
TARGET_DIR=$(cd -- "$TARGET_DIR" && pwd -P)
LOGS="$SCRATCH/logs"
mkdir -p -- "$LOGS"

# ---------------------------------------------------------------- generate --
python3 "$GEN" --out "$SCRATCH" --repo "$REPO" --tools "$TOOLS"
# Build with the repo's pinned toolchain (rustup looks for this file in the
# parent directories of the crates).
if [[ -f $REPO/rust-toolchain.toml ]]; then
    cmp -s "$REPO/rust-toolchain.toml" "$SCRATCH/rust-toolchain.toml" ||
        cp -- "$REPO/rust-toolchain.toml" "$SCRATCH/rust-toolchain.toml"
fi

if [[ $GENERATE_ONLY == 1 ]]; then
    echo "generated $TOOLS tools per crate:"
    echo "  ours: $SCRATCH/ours   (tool-core = $REPO/tool-core)"
    echo "  rmcp: $SCRATCH/theirs"
    exit 0
fi

# A rustc wrapper that records the wall time of the rustc invocation of the
# crate named in $CT_TIME_CRATE (in microseconds, appended to $CT_TIME_LOG)
# and passes every other invocation straight through.
WRAPPER="$SCRATCH/rustc-timer.sh"
cat >"$WRAPPER.tmp" <<'EOF'
#!/usr/bin/env bash
# Generated by benches/compile-time.sh.
crate="" prev=""
for arg in "$@"; do
    if [[ $prev == --crate-name ]]; then crate=$arg; break; fi
    prev=$arg
done
if [[ -n ${CT_TIME_CRATE:-} && $crate == "$CT_TIME_CRATE" ]]; then
    start=${EPOCHREALTIME//[!0-9]/}
    "$@" && rc=0 || rc=$?
    end=${EPOCHREALTIME//[!0-9]/}
    echo $((end - start)) >>"$CT_TIME_LOG"
    exit "$rc"
fi
exec "$@"
EOF
chmod +x "$WRAPPER.tmp"
mv -f -- "$WRAPPER.tmp" "$WRAPPER"

export CARGO_TARGET_DIR="$TARGET_DIR"
export CARGO_INCREMENTAL=0
export RUSTC_WRAPPER="$WRAPPER"
unset RUSTC_WORKSPACE_WRAPPER CT_TIME_CRATE CT_TIME_LOG

CARGO_ARGS=(build --quiet)
[[ $PROFILE == release ]] && CARGO_ARGS+=(--release)
[[ -n $JOBS ]] && CARGO_ARGS+=(-j "$JOBS")

crate_dir() { if [[ $1 == ours ]]; then echo "$SCRATCH/ours"; else echo "$SCRATCH/theirs"; fi; }
crate_name() { if [[ $1 == ours ]]; then echo ours; else echo theirs; fi; }
label() { if [[ $1 == ours ]]; then echo "ours (tool-core #[tool])"; else echo "rmcp (#[tool]+#[tool_router])"; fi; }

# run_cargo SIDE LOGFILE: cargo build in the side's crate; on failure show the
# log and exit 1.
run_cargo() {
    local side=$1 log=$2
    if ! (cd -- "$(crate_dir "$side")" && cargo "${CARGO_ARGS[@]}") >"$log" 2>&1; then
        echo >&2
        echo "compile-time.sh: 'cargo ${CARGO_ARGS[*]}' failed for $(label "$side") in $(crate_dir "$side")" >&2
        echo "---- last lines of $log ----" >&2
        tail -n 40 -- "$log" >&2
        exit 1
    fi
}

fmt_s() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1e6 }'; }

# ------------------------------------------------------------------ header --
RUSTC_V=$(cd -- "$SCRATCH/theirs" && rustc --version 2>/dev/null || echo "rustc ?")
echo "compile-time: $TOOLS tools per crate, profile $PROFILE, $RUNS timed run(s) per crate, jobs ${JOBS:-cargo default}"
echo "  $RUSTC_V; CARGO_INCREMENTAL=0 (non-incremental) for all builds; dependencies prebuilt"
echo "  scratch: $SCRATCH   target dir: $TARGET_DIR"
echo

# ------------------------------------------------------------------ warm-up --
SUSPECT=()
for side in "${SIDES[@]}"; do
    printf 'warm-up (building dependencies): %s ... ' "$(label "$side")"
    start=${EPOCHREALTIME//[!0-9]/}
    run_cargo "$side" "$LOGS/$side-warmup.log"
    end=${EPOCHREALTIME//[!0-9]/}
    note=""
    warnings=$(grep -c '^warning' "$LOGS/$side-warmup.log" || true)
    [[ $warnings -gt 0 ]] && note=" ($warnings warning(s): see $LOGS/$side-warmup.log)"
    echo "done in $(fmt_s $((end - start)))s$note"
    # If the generated tool fns are reported as dead code, the #[tool] macro did
    # not generate anything that uses them (a placeholder or broken macro): the
    # timing would then measure plain functions only.
    if grep -q 'function `tool_[0-9]*` is never used' "$LOGS/$side-warmup.log"; then
        SUSPECT+=("$side")
        echo "  WARNING: the tool functions of $(label "$side") are dead code: its #[tool] expands to"
        echo "           nothing that uses them, so its figures are not meaningful"
    fi
done
echo

# ------------------------------------------------------------------- timing --
declare -A RUSTC_US CARGO_US
for side in "${SIDES[@]}"; do RUSTC_US[$side]="" CARGO_US[$side]=""; done

for ((run = 1; run <= RUNS; run++)); do
    for side in "${SIDES[@]}"; do
        printf 'run %d/%d: %-30s ' "$run" "$RUNS" "$(label "$side")"
        dir=$(crate_dir "$side")
        # Untimed: make sure every dependency is up to date.
        run_cargo "$side" "$LOGS/$side-pre.log"
        tlog="$LOGS/$side-rustc-times.txt"
        : >"$tlog"
        touch -- "$dir/src/lib.rs"
        start=${EPOCHREALTIME//[!0-9]/}
        CT_TIME_CRATE=$(crate_name "$side") CT_TIME_LOG=$tlog run_cargo "$side" "$LOGS/$side-run$run.log"
        end=${EPOCHREALTIME//[!0-9]/}
        n=$(wc -l <"$tlog")
        if [[ $n -ne 1 ]]; then
            echo >&2
            echo "compile-time.sh: expected exactly one rustc invocation of $(crate_name "$side"), saw $n" >&2
            exit 1
        fi
        rustc_us=$(<"$tlog")
        cargo_us=$((end - start))
        RUSTC_US[$side]+="$rustc_us "
        CARGO_US[$side]+="$cargo_us "
        echo "rustc $(fmt_s "$rustc_us")s   cargo $(fmt_s "$cargo_us")s"
    done
done
echo

# ------------------------------------------------------------------ summary --
# stats "us us us" -> "min median" (microseconds)
stats() {
    tr ' ' '\n' <<<"$1" | awk 'NF' | sort -n | awk '
        { v[NR] = $1 }
        END {
            med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%d %d\n", v[1], med
        }'
}
runs_s() { local out="" us; for us in $1; do out+="$(fmt_s "$us") "; done; echo "${out% }"; }

declare -A MIN MED CMIN
printf '%-30s  %-24s  %8s  %8s  %10s\n' "crate" "rustc per run (s)" "min" "median" "cargo min"
printf '%-30s  %-24s  %8s  %8s  %10s\n' "-----" "-----------------" "---" "------" "---------"
for side in "${SIDES[@]}"; do
    read -r MIN[$side] MED[$side] < <(stats "${RUSTC_US[$side]}")
    read -r CMIN[$side] _ < <(stats "${CARGO_US[$side]}")
    printf '%-30s  %-24s  %8s  %8s  %10s\n' "$(label "$side")" "$(runs_s "${RUSTC_US[$side]}")" \
        "$(fmt_s "${MIN[$side]}")" "$(fmt_s "${MED[$side]}")" "$(fmt_s "${CMIN[$side]}")"
done
echo

if [[ ${#SIDES[@]} -eq 2 ]]; then
    read -r ratio verdict < <(awk -v o="${MIN[ours]}" -v r="${MIN[rmcp]}" -v t="$TARGET_RATIO" \
        'BEGIN { q = o / r; printf "%.2f %s\n", q, (sprintf("%.2f", q) + 0 <= t + 0) ? "PASS" : "FAIL" }')
    ratio_med=$(awk -v o="${MED[ours]}" -v r="${MED[rmcp]}" 'BEGIN { printf "%.2f", o / r }')
    ratio_cargo=$(awk -v o="${CMIN[ours]}" -v r="${CMIN[rmcp]}" 'BEGIN { printf "%.2f", o / r }')
    echo "ours/rmcp: ratio $ratio (target <= $TARGET_RATIO): $verdict"
    echo "  (min of the crates' own rustc times; median ratio $ratio_med; whole 'cargo build' wall-time ratio $ratio_cargo)"
    if [[ ${#SUSPECT[@]} -gt 0 ]]; then
        echo "  WARNING: not meaningful: the tool functions of '${SUSPECT[*]}' are dead code (see the warm-up notes above)"
    fi
else
    echo "only one side measured (--only $ONLY): no ratio"
fi
