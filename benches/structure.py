#!/usr/bin/env python3
"""The shape of the code, as issue 25 measures it: run from the repository's root.

    python3 benches/structure.py

Prints, from the sources as they are:
  * the largest source files, each with the first line of its module doc (what it owns);
  * the import graph between the layers (tool-core's definition side, its runtime, its MCP
    half, tool-std's library, the `toolbox` CLI), counted over `use` lines and paths
    (`crate::..`, `tool_core::..`, `tool_std::..`) outside comments, and any cycle in it;
  * the crates each crate of the workspace depends on (`cargo tree --depth 1`);
  * the lines of hand-written configuration parsing (the typed readers of settings files,
    `.mcp.json` and hook output, found by the names they go by).
Exit status 1 when the layers import each other in a cycle.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["tool-core/src", "tool-std/src", "tool-macros/src"]

# tool-core's modules by the layer they belong to, as `crate::<name>` names them.
DEFINITION = {
    "definition", "spec", "tool", "context", "output", "error", "schema", "registry", "toolset",
    "workspace", "provider", "Args", "Json", "Structured", "State", "Tool", "ToolCall",
    "ToolResult", "ToolError", "ToolOutput", "Toolset", "Registry", "Workspace", "WorkspacePath",
    "WebUrl", "BoxFuture", "__private",
}
RUNTIME = {
    "runtime", "coordinator", "Coordinator", "policy", "approval", "hooks", "settings",
    "middleware", "budget", "events",
}

PATH = re.compile(r"\b(crate|tool_core|tool_std)::(?:runtime::)?(\w+)")
LINE_COMMENT = re.compile(r"//.*$")
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def layer_of(path: Path) -> str | None:
    """The layer a source file is in."""
    text = str(path.relative_to(ROOT))
    if text.startswith("tool-core/src/definition/"):
        return "definition"
    if text.startswith("tool-core/src/runtime/mcp/"):
        return "mcp"
    if text.startswith("tool-core/src/runtime/"):
        return "runtime"
    if text.startswith("tool-std/src/bin/"):
        return "cli"
    if text.startswith("tool-std/src/"):
        return "tool-std"
    return None


def target_layer(krate: str, name: str, own_crate: str) -> str | None:
    """The layer `krate::name` points into, seen from a file of `own_crate`."""
    if krate == "tool_std" or (krate == "crate" and own_crate == "tool-std"):
        return "tool-std"
    if krate == "crate" and own_crate != "tool-core":
        return None
    if name == "mcp":
        return "mcp"
    if name in RUNTIME:
        return "runtime"
    if name in DEFINITION:
        return "definition"
    return None


def code_lines(text: str) -> list[str]:
    """The lines of `text` without string literals (a message may name a path), comments
    (doc comments included: a doc link may point anywhere) and the tests' modules
    (`#[cfg(test)] mod tests`, to the file's end)."""
    lines = []
    for line in text.splitlines():
        if line.strip() == "#[cfg(test)]":
            break
        lines.append(LINE_COMMENT.sub("", STRING.sub('""', line)))
    return lines


def sources() -> list[Path]:
    return sorted(path for folder in SOURCES for path in (ROOT / folder).rglob("*.rs"))


def largest_files(count: int = 12) -> None:
    print(f"The {count} largest source files (lines), and what each owns:")
    sized = []
    for path in sources():
        text = path.read_text()
        doc = next((line[3:].strip() for line in text.splitlines() if line.startswith("//!")), "")
        sized.append((len(text.splitlines()), path.relative_to(ROOT), doc))
    for lines, path, doc in sorted(sized, reverse=True)[:count]:
        print(f"  {lines:5}  {path}")
        if doc:
            print(f"         {doc[:96]}")
    print()


def import_graph() -> bool:
    """Prints the edges between layers; `True` when they form a cycle."""
    edges: dict[tuple[str, str], int] = defaultdict(int)
    for path in sources():
        source = layer_of(path)
        if source is None:
            continue
        own_crate = str(path.relative_to(ROOT)).split("/")[0]
        for line in code_lines(path.read_text()):
            for krate, name in PATH.findall(line):
                target = target_layer(krate, name, own_crate)
                if target is not None and target != source:
                    edges[(source, target)] += 1
    print("Imports between layers (paths named, comments and tests left out):")
    for (source, target), count in sorted(edges.items()):
        print(f"  {source:10} -> {target:10} {count:4}")
    cycle = find_cycle({edge for edge in edges})
    print("  cycle: " + (" -> ".join(cycle) if cycle else "none"))
    print()
    return bool(cycle)


def find_cycle(edges: set[tuple[str, str]]) -> list[str]:
    graph: dict[str, list[str]] = defaultdict(list)
    for source, target in sorted(edges):
        graph[source].append(target)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def crate_graph() -> None:
    print("Crates and what each depends on (cargo tree, normal dependencies, depth 1):")
    for package in ["tool-macros", "tool-core", "tool-std"]:
        tree = subprocess.run(
            ["cargo", "tree", "-q", "-p", package, "-e", "normal", "--depth", "1", "--prefix",
             "none"],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )
        names = [line.split()[0] for line in tree.stdout.splitlines()[1:] if line.strip()]
        ours = [name for name in names if name.startswith("tool-")]
        print(f"  {package}: {len(names)} crates" + (f", of ours {', '.join(ours)}" if ours else ""))
    print()


# The hand-written readers of configuration, by the names they go by: (file, first line's
# pattern, the pattern of the line after the last).
READERS = [
    # Where it is since the settings file became types (`settings/file.rs`).
    ("tool-core/src/runtime/settings/read.rs", r"^struct Reader<", r"^}\s*$", "impl Reader"),
    ("tool-core/src/runtime/settings/mod.rs", r"^struct Reader<", r"^}\s*$", "impl Reader"),
    # Where it was before settings became a folder, so older commits can be measured.
    ("tool-core/src/runtime/settings.rs", r"^struct Reader<", r"^}\s*$", "impl Reader"),
    ("tool-core/src/runtime/mcp/client/config/read.rs", r"^struct Reader<", r"^}\s*$", "impl Reader"),
    # Before `.mcp.json`'s reader had a file of its own.
    ("tool-core/src/runtime/mcp/client/config.rs", r"^struct Reader<", r"^}\s*$", "impl Reader"),
    # Before hook output was read by `runtime/config.rs`.
    ("tool-core/src/runtime/hooks/output.rs", r"^fn parse_json\(", r"^}\s*$", "impl<'a> Fields"),
]


# A JSON value's kind checked by hand: what a typed read does once, in runtime/config.rs.
HAND_CHECK = re.compile(r"\.(as_str|as_object|as_array|as_bool|as_u64|as_i64|as_f64)\(\)|Value::(String|Object|Array|Bool|Number)\(")


def config_parsing() -> None:
    print("Hand-written configuration parsing: lines of each reader, and the hand checks of a")
    print("JSON value's kind in its file (what the typed reads of runtime/config.rs replace):")
    total = total_checks = 0
    for file, start, end, last_block in READERS:
        path = ROOT / file
        if not path.exists():
            continue
        lines = path.read_text().splitlines()
        first = next((i for i, line in enumerate(lines) if re.match(start, line)), None)
        blocks = [i for i, line in enumerate(lines) if line.startswith(last_block)]
        if first is None or not blocks:
            print(f"      0 lines    0 checks  {file}: read by runtime/config.rs")
            continue
        # The reader runs to the end of its last block (`impl Reader`, `impl Fields`).
        block = max(blocks)
        stop = next(i for i in range(block, len(lines)) if re.match(end, lines[i]))
        count = stop - first + 1
        total += count
        checks = sum(1 for line in code_lines("\n".join(lines)) if HAND_CHECK.search(line))
        total_checks += checks
        print(f"  {count:5} lines  {checks:3} checks  {file}:{first + 1}-{stop + 1}")
    print(f"  {total:5} lines  {total_checks:3} checks  in all")
    print()


def main() -> int:
    largest_files()
    cycle = import_graph()
    crate_graph()
    config_parsing()
    return 1 if cycle else 0


if __name__ == "__main__":
    sys.exit(main())
