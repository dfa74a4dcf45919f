#!/usr/bin/env bash
# Compile-time benchmark: our `#[tool]` versus rmcp's `#[tool]` + `#[tool_router]`,
# and our tools written as methods (`#[tools] impl`) versus as functions (taking
# no state, and taking the methods' value as `State<T>`, what a method replaces).
#
# Generates three throwaway crates with the same N (default 200) tools, builds
# their dependencies once, then times rebuilds of just the crates themselves
# and prints the ratios ours/rmcp (target: <= 0.80) and methods/functions
# (target: <= 1.00, methods must not cost more than functions).
# Run with --help for usage.
set -euo pipefail

TARGET_RATIO="0.80"

usage() {
    cat <<EOF
Usage: benches/compile-time.sh [OPTIONS]

Builds a crate of N tool functions written with our #[tool] (tool-core) and a
crate of the same N tools written with rmcp's #[tool] + #[tool_router], with
all dependencies prebuilt, and prints the ratio of the two crates' own build
times. Target: ours/rmcp <= ${TARGET_RATIO}.

How it measures:
  * Both crates are generated (by benches/compile-time/gen.py) outside the
    repo, in a scratch directory, and built into one shared target dir with
    the same profile. 'ours' depends on <repo>/tool-core by path.
  * Warm-up: one 'cargo build' per crate (builds all dependencies).
  * Each timed run: an untimed 'cargo build' (so that a changed dependency,
    e.g. an edited tool-core, is not rebuilt inside the timed build; if one is
    anyway, the run is repeated), then 'touch src/lib.rs' and a timed
    'cargo build' that recompiles only that crate. The two crates' runs are
    interleaved.
  * Measured per run: the wall time and the CPU time (user+sys) of the crate's
    own rustc invocation (recorded by a RUSTC_WRAPPER), and the wall time of
    the whole 'cargo build' (adds cargo's own overhead).
  * CARGO_INCREMENTAL=0 for every build: both sides are full, non-incremental
    rebuilds of the crate.
  * The headline ratio is min(rustc wall time) ours / rmcp. The ratios of the
    medians, of the CPU times and of the cargo wall times are shown as well;
    the CPU-time ratio is the steadier one on a busy machine.

Options:
  --runs N          timed runs per crate (default: 3)
  --tools N         tools per crate (default: 200)
  --release         use the release profile (default: dev)
  -j, --jobs N      cargo/rustc parallelism (default: cargo's default)
  --scratch DIR     scratch directory for the generated crates
                    (default: \${TMPDIR:-/tmp}/toolkit-compile-time); it is
                    reused across invocations so dependencies stay prebuilt
  --target-dir DIR  shared cargo target dir (default: <scratch>/target)
  --only SIDE       measure one side only: 'ours', 'methods', 'state' or 'rmcp'
                    (no ratio)
  --instructions    also count the instructions each crate's own rustc executes,
                    once, under valgrind's cachegrind (needs valgrind; about
                    3 minutes per crate). Unlike time, the count does not
                    depend on what else the machine does: it settles a ratio
                    within a few percent of 1.00, which timings cannot
  --clean           delete the generated crates and target dir first
  --generate-only   generate the two crates and exit
  -h, --help        show this help

Exit status: 0 when the measurement completed (whether or not the target was
met), 1 when a build fails, 2 on bad usage.
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
INSTRUCTIONS=0
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
        --instructions) INSTRUCTIONS=1; shift ;;
        --clean) CLEAN=1; shift ;;
        --generate-only) GENERATE_ONLY=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "compile-time.sh: unknown argument '$1'" >&2; echo >&2; usage >&2; exit 2 ;;
    esac
done

case $ONLY in
    "") SIDES=(ours methods state rmcp) ;;
    ours | methods | state | rmcp) SIDES=("$ONLY") ;;
    *) die "--only takes 'ours', 'methods', 'state' or 'rmcp', got '$ONLY'" ;;
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
    # Only ever delete what this script creates.
    rm -rf -- "$SCRATCH/ours" "$SCRATCH/methods" "$SCRATCH/state" "$SCRATCH/theirs" "$SCRATCH/target" "$SCRATCH/logs" \
        "$SCRATCH/rustc-timer.sh" "$SCRATCH/rust-toolchain.toml"
fi

# ---------------------------------------------------------------- generate --
python3 "$GEN" --out "$SCRATCH" --repo "$REPO" --tools "$TOOLS"
# Build with the repo's pinned toolchain (rustup looks for this file in the
# parent directories of the crates).
if [[ -f $REPO/rust-toolchain.toml ]]; then
    cmp -s -- "$REPO/rust-toolchain.toml" "$SCRATCH/rust-toolchain.toml" ||
        cp -- "$REPO/rust-toolchain.toml" "$SCRATCH/rust-toolchain.toml"
fi

if [[ $GENERATE_ONLY == 1 ]]; then
    echo "generated $TOOLS tools per crate:"
    echo "  ours: $SCRATCH/ours   (tool-core = $REPO/tool-core)"
    echo "  rmcp: $SCRATCH/theirs"
    exit 0
fi

[[ -n $TARGET_DIR ]] || TARGET_DIR="$SCRATCH/target"
mkdir -p -- "$TARGET_DIR"
TARGET_DIR=$(cd -- "$TARGET_DIR" && pwd -P)
LOGS="$SCRATCH/logs"
mkdir -p -- "$LOGS"

# A rustc wrapper that records "<wall s> <user s> <sys s>" of the rustc
# invocation of the crate named in $CT_TIME_CRATE (appended to $CT_TIME_LOG)
# and passes every other invocation straight through.
WRAPPER="$SCRATCH/rustc-timer.sh"
cat >"$WRAPPER.tmp" <<'EOF'
#!/usr/bin/env bash
# Generated by benches/compile-time.sh: times one crate's rustc invocation.
crate="" prev=""
for arg in "$@"; do
    if [[ $prev == --crate-name ]]; then crate=$arg; break; fi
    prev=$arg
done
if [[ -n ${CT_COUNT_CRATE:-} && $crate == "$CT_COUNT_CRATE" ]]; then
    exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$CT_COUNT_OUT" \
        --log-file="$CT_COUNT_OUT.log" "$@"
fi
if [[ -n ${CT_TIME_CRATE:-} && $crate == "$CT_TIME_CRATE" ]]; then
    TIMEFORMAT='%3R %3U %3S'
    # `time` reports on the group's stderr (the log); rustc keeps the real one.
    { time "$@" 2>&4 4>&-; } 4>&2 2>>"$CT_TIME_LOG"
    exit
fi
exec "$@"
EOF
chmod +x "$WRAPPER.tmp"
mv -f -- "$WRAPPER.tmp" "$WRAPPER"

export CARGO_TARGET_DIR="$TARGET_DIR"
export CARGO_INCREMENTAL=0
export RUSTC_WRAPPER="$WRAPPER"
unset RUSTC_WORKSPACE_WRAPPER CT_TIME_CRATE CT_TIME_LOG CT_COUNT_CRATE CT_COUNT_OUT

CARGO_ARGS=(build)
[[ $PROFILE == release ]] && CARGO_ARGS+=(--release)
[[ -n $JOBS ]] && CARGO_ARGS+=(-j "$JOBS")

crate_dir() { case $1 in ours | methods | state) echo "$SCRATCH/$1" ;; *) echo "$SCRATCH/theirs" ;; esac; }
crate_name() { case $1 in ours | methods | state) echo "$1" ;; *) echo theirs ;; esac; }
label() { case $1 in ours) echo "ours (tool-core #[tool])" ;; methods) echo "ours, as #[tools] methods" ;; state) echo "ours, fns taking State<T>" ;; *) echo "rmcp (#[tool]+#[tool_router])" ;; esac; }

# run_cargo SIDE LOGFILE: cargo build in the side's crate; on failure show the
# end of the log and exit 1.
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

now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }
# fmt2 X: a number with two decimals
fmt2() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }

# ------------------------------------------------------------------ header --
RUSTC_V=$(cd -- "$SCRATCH/theirs" && rustc --version 2>/dev/null || echo "rustc ?")
echo "compile-time: $TOOLS tools per crate, profile $PROFILE, $RUNS timed run(s) per crate, jobs ${JOBS:-cargo default}"
echo "  $RUSTC_V; CARGO_INCREMENTAL=0 (non-incremental) for all builds; dependencies prebuilt"
echo "  scratch: $SCRATCH   target dir: $TARGET_DIR"
echo

if [[ $INSTRUCTIONS == 1 ]] && ! command -v valgrind >/dev/null; then
    die "--instructions needs valgrind (apt install valgrind)"
fi

# ------------------------------------------------------------------ warm-up --
SUSPECT=()
for side in "${SIDES[@]}"; do
    printf 'warm-up (building dependencies): %s ... ' "$(label "$side")"
    start=$(now_us)
    run_cargo "$side" "$LOGS/$side-warmup.log"
    end=$(now_us)
    note=""
    warnings=$(grep '^warning' "$LOGS/$side-warmup.log" | grep -cv 'generated [0-9]* warning' || true)
    [[ $warnings -gt 0 ]] && note=" ($warnings warning(s): see $LOGS/$side-warmup.log)"
    echo "done in $(fmt2 "$(((end - start) / 1000))e-3")s$note"
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
declare -A WALL CPU CARGO
for side in "${SIDES[@]}"; do WALL[$side]="" CPU[$side]="" CARGO[$side]=""; done

for ((run = 1; run <= RUNS; run++)); do
    # Each run starts with the next side, so none always builds first, or always right
    # after the same other (page cache, CPU frequency and the like carry between builds).
    shift_by=$(((run - 1) % ${#SIDES[@]}))
    order=("${SIDES[@]:shift_by}" "${SIDES[@]:0:shift_by}")
    for side in "${order[@]}"; do
        printf 'run %d/%d: %-30s ' "$run" "$RUNS" "$(label "$side")"
        dir=$(crate_dir "$side")
        tlog="$LOGS/$side-rustc-times.txt"
        rlog="$LOGS/$side-run$run.log"
        for attempt in 1 2 3; do
            # Untimed: make sure every dependency is up to date.
            run_cargo "$side" "$LOGS/$side-pre.log"
            : >"$tlog"
            touch -- "$dir/src/lib.rs"
            start=$(now_us)
            CT_TIME_CRATE=$(crate_name "$side") CT_TIME_LOG=$tlog run_cargo "$side" "$rlog"
            end=$(now_us)
            # A dependency edited between the untimed and the timed build (e.g.
            # tool-core while it is being worked on) is rebuilt inside the timed
            # build: repeat the run then. (The rustc figures are unaffected;
            # the cargo wall time is.)
            others=$(sed -n 's/^ *Compiling \([^ ]*\) .*/\1/p' "$rlog" | grep -vx "$(crate_name "$side")" || true)
            [[ -z $others ]] && break
            others=$(tr '\n' ' ' <<<"$others")
            if [[ $attempt -lt 3 ]]; then
                printf '(dependency rebuilt: %s; repeating) ' "${others% }"
            else
                printf '(dependency rebuilt: %s; in the cargo time) ' "${others% }"
            fi
        done
        n=$(grep -c . "$tlog" || true)
        if [[ $n -ne 1 ]]; then
            echo >&2
            echo "compile-time.sh: expected one timed rustc invocation of $(crate_name "$side"), saw $n (see $rlog, $tlog)" >&2
            exit 1
        fi
        read -r wall user sys <"$tlog"
        [[ $wall =~ ^[0-9]+[.,]?[0-9]*$ ]] || { echo "compile-time.sh: bad timing line in $tlog" >&2; exit 1; }
        wall=${wall/,/.} user=${user/,/.} sys=${sys/,/.}
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
        cargo_s=$(awk -v us=$((end - start)) 'BEGIN { printf "%.3f", us / 1e6 }')
        WALL[$side]+="$wall " CPU[$side]+="$cpu " CARGO[$side]+="$cargo_s "
        echo "rustc wall $(fmt2 "$wall")s  cpu $(fmt2 "$cpu")s   cargo $(fmt2 "$cargo_s")s"
    done
done
echo

# ------------------------------------------------------------------ summary --
# stats "x x x" -> "min median"
stats() {
    tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '
        { v[NR] = $1 }
        END { printf "%.3f %.3f\n", v[1], (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
list2() { local out="" x; for x in $1; do out+="$(fmt2 "$x") "; done; echo "${out% }"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

declare -A WMIN WMED CMIN CGMIN
fmt='%-30s  %-26s  %7s  %7s  %8s  %9s\n'
# shellcheck disable=SC2059 # the format is a variable on purpose
printf "$fmt" "crate" "rustc wall per run (s)" "min" "median" "cpu min" "cargo min"
# shellcheck disable=SC2059
printf "$fmt" "-----" "----------------------" "---" "------" "-------" "---------"
for side in "${SIDES[@]}"; do
    read -r WMIN[$side] WMED[$side] < <(stats "${WALL[$side]}")
    read -r CMIN[$side] _ < <(stats "${CPU[$side]}")
    read -r CGMIN[$side] _ < <(stats "${CARGO[$side]}")
    # shellcheck disable=SC2059
    printf "$fmt" "$(label "$side")" "$(list2 "${WALL[$side]}")" "$(fmt2 "${WMIN[$side]}")" \
        "$(fmt2 "${WMED[$side]}")" "$(fmt2 "${CMIN[$side]}")" "$(fmt2 "${CGMIN[$side]}")"
done
echo

# ------------------------------------------------------------ instructions --
declare -A IR
if [[ $INSTRUCTIONS == 1 ]]; then
    echo "instructions executed by each crate's own rustc (valgrind cachegrind, one run each):"
    for side in "${SIDES[@]}"; do
        out="$LOGS/$side-cachegrind.out"
        rm -f -- "$out" "$out.log"
        run_cargo "$side" "$LOGS/$side-pre.log"
        touch -- "$(crate_dir "$side")/src/lib.rs"
        CT_COUNT_CRATE=$(crate_name "$side") CT_COUNT_OUT=$out run_cargo "$side" "$LOGS/$side-count.log"
        IR[$side]=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out" 2>/dev/null || true)
        [[ -n ${IR[$side]} ]] || { echo "compile-time.sh: no instruction count for $(label "$side") (see $out.log)" >&2; exit 1; }
        printf '  %-30s  %s G\n' "$(label "$side")" "$(awk -v n="${IR[$side]}" 'BEGIN { printf "%.3f", n / 1e9 }')"
    done
    echo
fi

# compare_methods BASE: methods against the functions of side BASE.
compare_methods() {
    local base=$1 r basis="min rustc wall time"
    r=$(ratio "${WMIN[methods]}" "${WMIN[$base]}")
    if [[ $INSTRUCTIONS == 1 ]]; then
        # The count is the deciding figure: the times of two builds this close differ
        # by more from run to run than from each other.
        r=$(awk -v a="${IR[methods]}" -v b="${IR[$base]}" 'BEGIN { printf "%.3f", a / b }')
        basis="instructions"
    fi
    echo "  ratio $r ($basis); min rustc wall time: $(ratio "${WMIN[methods]}" "${WMIN[$base]}"), medians: $(ratio "${WMED[methods]}" "${WMED[$base]}"), rustc cpu time: $(ratio "${CMIN[methods]}" "${CMIN[$base]}")"
    VERDICT=$(awk -v r="$r" 'BEGIN { print (r + 0 <= 1.00) ? "PASS" : "FAIL" }')
}
if [[ -n ${WMIN[methods]:-} && -n ${WMIN[state]:-} ]]; then
    # Like for like: a method is called on a value, and so is a function taking it as state.
    echo "methods/functions taking State<T> (target <= 1.00):"
    compare_methods state
    echo "  $VERDICT"
fi
if [[ -n ${WMIN[methods]:-} && -n ${WMIN[ours]:-} ]]; then
    # For information: a method also borrows its value, which a function without state does not.
    echo "methods/functions without state:"
    compare_methods ours
fi
if [[ -n ${WMIN[ours]:-} && -n ${WMIN[rmcp]:-} ]]; then
    r=$(ratio "${WMIN[ours]}" "${WMIN[rmcp]}")
    verdict=$(awk -v r="$r" -v t="$TARGET_RATIO" 'BEGIN { print (r + 0 <= t + 0) ? "PASS" : "FAIL" }')
    echo "ours/rmcp: ratio $r (target <= $TARGET_RATIO): $verdict"
    [[ $INSTRUCTIONS == 1 ]] &&
        echo "  instructions: $(awk -v a="${IR[ours]}" -v b="${IR[rmcp]}" 'BEGIN { printf "%.3f", a / b }')"
    echo "  min rustc wall time ratio; medians: $(ratio "${WMED[ours]}" "${WMED[rmcp]}")," \
        "rustc cpu time (user+sys): $(ratio "${CMIN[ours]}" "${CMIN[rmcp]}")," \
        "whole cargo build: $(ratio "${CGMIN[ours]}" "${CGMIN[rmcp]}")"
    if [[ ${#SUSPECT[@]} -gt 0 ]]; then
        echo "  WARNING: not meaningful: the tool functions of '${SUSPECT[*]}' are dead code (see the warm-up notes above)"
    fi
else
    echo "only one side measured (--only $ONLY): no ratio"
fi
