#!/usr/bin/env python3
"""Runs the benchmarks and writes BENCHMARKS.md and the README's figures from what they print.

Each benchmark's figures are kept in benches/results.json with where they came from: the
commit (with "+changes" when the tree was not clean), the date, and the machine (CPU model,
cores, memory, kernel, rustc). BENCHMARKS.md and the table between the README's
`figures:begin` and `figures:end` markers are written from that file alone, so neither is
edited by hand and every figure in them names its run.

    benches/record.py                  # run every benchmark, then write both files
    benches/record.py dispatch grep    # run these alone; the others keep their last figures
    benches/record.py --list           # the benchmarks, with their commands
    benches/record.py --render         # write both files from results.json, running nothing
    benches/record.py --reparse        # read the figures again from the last outputs, then write

A benchmark that fails keeps its previous figures, and the script says so and exits 1.
Peers a benchmark compares against (rg, fd, node, rust-mcp-filesystem) are found as the
benchmark itself finds them; what it leaves out, it says in its output, which is kept.
"""

import datetime
import json
import os
import platform
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benches", "results.json")
LOGS = os.path.join(ROOT, "target", "bench-record")

# key, command, what it measures, its target, and the regular expression whose first group,
# searched in the kept output, is the headline figure the README shows (None: not shown
# there). Commands run from the repository's root.
BENCHMARKS = [
    ("dispatch", "cargo bench -p tool-core --bench dispatch",
     "a call through the coordinator (policy, no hooks) against a hand-written dispatch",
     "at most 5x", r"dispatch ratio \(median of \d+ interleaved rounds\): (\S+)"),
    ("policy", "cargo bench -p tool-core --bench policy",
     "Policy::decide with 100 rules, per decision", "under 1 µs; a parsed command under 50 µs",
     r"slowest call without a command, 100 rules: (\S+)"),
    ("batch", "cargo bench -p tool-core --bench batch",
     "call_batch of 100 calls of 10 ms against ceil(100/limit) x 10 ms", "at most 1.3x", None),
    ("providers", "cargo bench -p tool-core --bench providers",
     "a streamed response of 100 tool calls per provider, against a Value parse of each event",
     "measured", None),
    ("registry", "cargo bench -p bench-registry-1000",
     "1,000 tools: the first Registry::global(), a lookup by name", "under 2 ms; under 50 ns",
     None),
    ("read_memory", "cargo bench -p tool-std --bench read_memory",
     "read_file near the end of a 1 GiB file: peak resident memory", "under 32 MiB",
     r"peak resident memory (\d+ MiB)"),
    ("fs_tools", "cargo bench -p tool-std --bench fs_tools",
     "read_file and list_dir in process against the plainest code; grep and glob in a "
     "two-file workspace against list_dir", "measured", None),
    ("edit_vs_sed", "cargo bench -p tool-std --bench edit_vs_sed",
     "edit_file of one line in a 10 MB file against sed -i", "at most 2x",
     r"ratio (\S+x)"),
    ("patch_100_files", "cargo bench -p tool-std --bench patch_100_files",
     "apply_patch of one hunk in each of 100 files", "measured", None),
    ("grep_vs_rg", "cargo bench -p tool-std --bench grep_vs_rg",
     "grep through a coordinator against rg, the same options, over the registry's sources",
     "at most 1.0x", r"grep literal, content: .*; (\S+x)"),
    ("glob_vs_rg_files", "cargo bench -p tool-std --bench glob_vs_rg_files",
     "glob and list_dir against rg --files (and fd), the same corpus", "at most 1.0x",
     r"glob \*\*/\*\.rs: .*; (\S+x)"),
    ("repo_map", "cargo bench -p tool-std --bench repo_map",
     "repo_map of tokio (148,000 lines of Rust), cold and cached; headline: cached",
     "cached under 100 ms",
     r"cached (\S+) \(target"),
    ("fetch_url", "cargo bench -p tool-std --bench fetch_url",
     "fetch_url of a 1 MB HTML page over loopback against a reqwest GET", "measured", None),
    ("shell_vs_sh", "cargo bench -p tool-std --bench shell_vs_sh",
     "run_shell(\"true\") through a coordinator against sh -c true", "at most 1.5x",
     r"sh -c \"true\": \S+; (\S+x)"),
    ("shell_sandbox", "cargo bench -p tool-std --bench shell_sandbox",
     "run_shell(\"true\") sandboxed, on each engine, against unsandboxed; headline: the time "
     "bubblewrap adds",
     "under 5 ms over unsandboxed", r"bubblewrap: \S+, (\S+) over unsandboxed"),
    ("read_artifact", "cargo bench -p tool-std --bench read_artifact",
     "a page of a 1,000,000-line artifact against Artifacts::read", "measured", None),
    ("execute", "cargo bench -p tool-std --bench execute",
     "execute making 100 tool calls against 100 direct calls", "measured", None),
    ("export", "cargo bench -p tool-std --bench export",
     "all of tool-std in every dialect: cold, cached, per tool", "measured", None),
    ("mcp_servers", "cargo bench -p tool-std --features cli --bench mcp_servers",
     "toolbox serve against rust-mcp-filesystem and the npm server-filesystem over stdio; "
     "headline: read_file p50, the npm server's over toolbox's",
     "the fastest of the three; at least 2x the npm server",
     r"^read\s+server-filesystem \(npm\)\s+(?:\S+\s+){6}(\S+x)"),
    ("mcp_http_load", "cargo bench -p tool-std --features cli --bench mcp_http_load",
     "toolbox serve --http: 50 clients with a session each, 20,000 read_file calls",
     "0 errors, isolation held", r"(\d[\d,.]* calls/s)"),
    ("build_cost", "benches/build-cost.py",
     "cold builds per feature, each in an empty target directory; headline: the README's "
     "first command", "the first command in at most 4 minutes",
     r"^agent\s+(\S+ s) wall"),
    ("compile_time", "benches/compile-time.sh --runs 7 --instructions",
     "build time of 200 tools, ours against rmcp's #[tool] (and as #[tools] methods, against "
     "functions taking State<T>)",
     "at most 0.80 of rmcp's", r"ours/rmcp: ratio (\S+)"),
]

# Lines of cargo's and criterion's progress, which say nothing about the figures.
CHATTER = re.compile(
    r"^\s*(Compiling|Finished|Running|Downloaded|Downloading|Updating|Locking|Blocking|Fresh|"
    r"Benchmarking|Warning: Unable to complete|Gnuplot|Found \d+ outliers|\d+ \(\d+\.\d+%\) "
    r"(low|high) (mild|severe)|change:|No change in performance|Change within noise|"
    r"Performance has (improved|regressed)|thrpt:|warning: )")
CRITERION_TIME = re.compile(r"^(\S.*?)?\s*time:\s+\[(\S+ \S+) (\S+ \S+) (\S+ \S+)\]")


def kept_lines(output):
    """The lines of a benchmark's output that carry figures: its own, and criterion's
    estimates as `name: median (low to high)`."""
    lines = []
    for raw in output.splitlines():
        line = raw.rstrip()
        if not line.strip() or CHATTER.match(line):
            continue
        timed = CRITERION_TIME.match(line)
        if timed:
            name = (timed.group(1) or "").strip()
            # criterion puts a long name on a line of its own, before its estimates.
            if not name and lines:
                name = lines.pop().strip()
            lines.append(f"{name}: {timed.group(3)} ({timed.group(2)} to {timed.group(4)})")
            continue
        lines.append(line)
    return lines


def headline_of(lines, headline):
    """The first group of `headline` in the first line it is found in, if any."""
    if headline:
        for line in lines:
            found = re.search(headline, line)
            if found:
                return found.group(1)
    return None


def reparse():
    """Reads each benchmark's figures again from its last full output (target/bench-record),
    keeping its provenance: for when what is kept from an output changes."""
    results = load()
    for key, _command, _what, _target, headline in BENCHMARKS:
        log = os.path.join(LOGS, f"{key}.log")
        if key not in results or not os.path.exists(log):
            continue
        with open(log, encoding="utf-8") as file:
            lines = kept_lines(file.read())
        results[key]["output"] = lines
        results[key]["headline"] = headline_of(lines, headline)
    save(results)
    return results


def save(results):
    with open(RESULTS, "w", encoding="utf-8") as file:
        json.dump(results, file, indent=2, ensure_ascii=False)
        file.write("\n")


def run(command, cwd):
    return subprocess.run(command, shell=True, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace",
                          check=False)


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as info:
            kib = int(info.readline().split()[1])
            memory = f", {kib / (1 << 20):.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    rustc = run("rustc --version", ROOT).stdout.strip()
    return (f"{cpu}, {os.cpu_count()} cores{memory}, {platform.system()} "
            f"{platform.release()}, {rustc}")


def commit():
    head = run("git rev-parse --short HEAD", ROOT).stdout.strip() or "unknown"
    dirty = run("git status --porcelain --untracked-files=no", ROOT).stdout.strip()
    return head + ("+changes" if dirty else "")


def load():
    try:
        with open(RESULTS, encoding="utf-8") as file:
            return json.load(file)
    except FileNotFoundError:
        return {}


def record(keys):
    results = load()
    where = {"commit": commit(), "machine": machine()}
    os.makedirs(LOGS, exist_ok=True)
    env_note = "CARGO_INCREMENTAL=0"
    os.environ["CARGO_INCREMENTAL"] = "0"
    failed = []
    for key, command, _what, _target, headline in BENCHMARKS:
        if keys and key not in keys:
            continue
        print(f"== {key}: {command}", flush=True)
        started = datetime.datetime.now(datetime.timezone.utc)
        done = run(command, ROOT)
        log = os.path.join(LOGS, f"{key}.log")
        with open(log, "w", encoding="utf-8") as file:
            file.write(done.stdout)
        if done.returncode != 0:
            failed.append(key)
            print(f"   failed (exit {done.returncode}); its last figures are kept; see {log}")
            continue
        lines = kept_lines(done.stdout)
        figure = headline_of(lines, headline)
        seconds = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
        results[key] = {
            "commit": where["commit"],
            "date": started.strftime("%Y-%m-%d %H:%M UTC"),
            "machine": where["machine"],
            "environment": env_note,
            "seconds": round(seconds),
            "headline": figure,
            "output": lines,
        }
        print(f"   {figure or 'recorded'} ({seconds:.0f} s)", flush=True)
        save(results)
    return results, failed


def render(results):
    lines = [
        "# Benchmarks",
        "",
        "Written by `benches/record.py` from `benches/results.json`: do not edit by hand. Each",
        "figure names the commit, date and machine of its run (`+changes`: the tree had",
        "uncommitted changes). The machine is a VM whose speed drifts by several percent",
        "between runs, so compare figures of one run, not across runs. Rerun one benchmark with",
        "`benches/record.py NAME`, all with `benches/record.py`; the history and analysis of the",
        "figures are in [the performance notes](docs/performance.md).",
        "",
        "| benchmark | headline | target | run |",
        "|---|---|---|---|",
    ]
    for key, command, what, target, _headline in BENCHMARKS:
        result = results.get(key)
        if result is None:
            lines.append(f"| [{key}](#{key}): {what} | not yet recorded | {target} | |")
            continue
        figure = result.get("headline") or "see below"
        lines.append(
            f"| [{key}](#{key}): {what} | {figure} | {target} | {result['commit']}, {result['date']} |")
    for key, command, what, target, _headline in BENCHMARKS:
        result = results.get(key)
        lines += ["", f"## {key}", "", f"{what}. Target: {target}.", "", "```sh", command, "```", ""]
        if result is None:
            lines.append("Not yet recorded.")
            continue
        lines += [
            f"Run at {result['commit']} on {result['date']}, {result['seconds']} s, "
            f"{result['environment']}; {result['machine']}.",
            "",
            "```text",
            *result["output"],
            "```",
        ]
    write_if_changed(os.path.join(ROOT, "BENCHMARKS.md"), "\n".join(lines) + "\n")

    table = ["| what | figure | run | command |", "|---|---|---|---|"]
    for key, command, what, _target, headline in BENCHMARKS:
        result = results.get(key)
        if headline is None or result is None or not result.get("headline"):
            continue
        table.append(f"| {what} | {result['headline']} | {result['commit']}, "
                     f"{result['date'][:10]} | `{command}` |")
    readme_path = os.path.join(ROOT, "README.md")
    with open(readme_path, encoding="utf-8") as file:
        readme = file.read()
    begin, end = "<!-- figures:begin -->\n", "<!-- figures:end -->\n"
    if begin not in readme or end not in readme:
        sys.exit("README.md has no `<!-- figures:begin -->` ... `<!-- figures:end -->` markers")
    head, rest = readme.split(begin, 1)
    _old, tail = rest.split(end, 1)
    write_if_changed(readme_path, head + begin + "\n".join(table) + "\n" + end + tail)


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as file:
            if file.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    print(f"wrote {os.path.relpath(path, ROOT)}")


def main(arguments):
    known = [entry[0] for entry in BENCHMARKS]
    if "--list" in arguments:
        for key, command, what, _target, _headline in BENCHMARKS:
            print(f"{key:<18} {command}\n{'':<18} {what}")
        return 0
    if "--render" in arguments:
        render(load())
        return 0
    if "--reparse" in arguments:
        render(reparse())
        return 0
    unknown = [key for key in arguments if key not in known]
    if unknown:
        print(f"record.py: no benchmark {', '.join(unknown)}; the benchmarks: {', '.join(known)}",
              file=sys.stderr)
        return 2
    results, failed = record(set(arguments))
    render(results)
    if failed:
        print(f"record.py: failed: {', '.join(failed)} (their previous figures are kept)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
