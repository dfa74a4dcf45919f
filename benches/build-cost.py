#!/usr/bin/env python3
"""What each feature costs to build, cold: the time to first result of a user who names it.

Each row is a clean build (its own empty target directory, dependencies already downloaded,
`CARGO_INCREMENTAL=0`, the dev profile) of one thing a user asks for, from the smallest (a
crate that only defines tools) to the README's first command and the whole test suite's
build. For each: the wall time, the units built, the CPU time they took, and the slowest
ones as `cargo build --timings` reports them.

    benches/build-cost.py                 # every row
    benches/build-cost.py agent tests     # these rows alone
    benches/build-cost.py --list

Targets (issue 29): the README's first command (`agent`) in at most 4 minutes, the tests'
build (`tests`: `cargo test --workspace --no-run`; running them is on top) in a share of the
10 minutes `cargo test --workspace` may take cold. The target directories are under
`$TMPDIR/toolkit-build-cost` and removed after each row.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, what a user does, the cargo command (run from the repository's root).
ROWS = [
    ("definition", "a crate that only defines tools (tool-core, no default features)",
     ["cargo", "build", "-p", "tool-core", "--no-default-features"]),
    ("runtime", "tool-core with the coordinator (its default features)",
     ["cargo", "build", "-p", "tool-core"]),
    ("tool-std", "an agent linking tool-std (its default features: the tools, MCP)",
     ["cargo", "build", "-p", "tool-std"]),
    ("toolbox", "the toolbox command (tool-std, feature cli)",
     ["cargo", "build", "-p", "tool-std", "--features", "cli", "--bin", "toolbox"]),
    ("agent", "the README's first command (cargo run --example agent), built",
     ["cargo", "build", "--example", "agent"]),
    ("tests", "every test built (cargo test --workspace --no-run)",
     ["cargo", "test", "--workspace", "--no-run"]),
]

SLOWEST = 5


def units(report):
    """The units of a `--timings` HTML report: name, version, target and seconds."""
    with open(report, encoding="utf-8") as handle:
        html = handle.read()
    found = re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S)
    return json.loads(found.group(1)) if found else []


def row(name, what, command, scratch):
    target = os.path.join(scratch, name)
    shutil.rmtree(target, ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_INCREMENTAL="0")
    started = time.monotonic()
    done = subprocess.run(command + ["--timings"], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:
        print(f"{name}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
        return False
    reports = os.path.join(target, "cargo-timings")
    built = []
    if os.path.isdir(reports):
        html = sorted(f for f in os.listdir(reports) if f.startswith("cargo-timing-"))
        if html:
            built = units(os.path.join(reports, html[-1]))
    cpu = sum(unit["duration"] for unit in built)
    print(f"{name:<11} {wall:7.1f} s wall  {len(built):4} units  {cpu:7.1f} s of units   {what}")
    print(f"            `{' '.join(command)}`")
    for unit in sorted(built, key=lambda unit: -unit["duration"])[:SLOWEST]:
        target_name = unit.get("target", "").strip()
        print(f"              {unit['duration']:6.1f} s  {unit['name']} {unit['version']}"
              f"{'  ' + target_name if target_name else ''}")
    shutil.rmtree(target, ignore_errors=True)
    return True


def main(args):
    if "--list" in args:
        for name, what, command in ROWS:
            print(f"{name:<11} {what}: {' '.join(command)}")
        return 0
    chosen = [r for r in ROWS if not args or r[0] in args]
    unknown = set(args) - {r[0] for r in ROWS}
    if unknown:
        print(f"unknown rows: {', '.join(sorted(unknown))} (see --list)", file=sys.stderr)
        return 2
    subprocess.run(["cargo", "fetch"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"cold builds, each in an empty target directory; {os.cpu_count()} cores; "
          "dependencies downloaded beforehand")
    scratch = os.path.join(tempfile.gettempdir(), "toolkit-build-cost")
    os.makedirs(scratch, exist_ok=True)
    ok = all([row(name, what, command, scratch) for name, what, command in chosen])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
