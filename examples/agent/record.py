"""Writes conversation.sse: the model's side of the agent example, in the wire format of
OpenAI's chat completions streamed (server-sent events of `chat.completion.chunk`s, each
turn ending with `data: [DONE]`), split into fragments the way the API sends them.

The turns are written by hand, as a model would answer this sample project; edit TURNS and
run `python3 examples/agent/record.py` to record them again.
"""

import json
import pathlib

TURNS = [
    ("I'll get a map of the project and look for the mean and the median in one go.", [
        ("repo_map", {"focus": ["stats"]}),
        ("grep", {"pattern": "def (mean|median)", "output_mode": "content"}),
    ]),
    ("Both live in stats/core.py. Let me read it.", [
        ("read_file", {"path": "stats/core.py"}),
    ]),
    ("mean() divides by len(values) - 1. Fixing that first.", [
        ("edit_file", {"path": "stats/core.py",
                       "old_string": "return sum(values) / (len(values) - 1)",
                       "new_string": "return sum(values) / len(values)"}),
    ]),
    ("Plan mode is on, so here is the plan.", [
        ("present_plan", {"plan": "1. mean(): divide by len(values), not len(values) - 1.\n"
                                  "2. median(): sort the values before taking the middle.\n"
                                  "3. Run the tests before and after."}),
    ]),
    ("First the tests as they are.", [
        ("run_shell", {"command": "python3 -B -m unittest"}),
    ]),
    ("Three failures and an error, as expected. Now mean().", [
        # Written with two-space indentation; the file uses four.
        ("edit_file", {"path": "stats/core.py",
                       "old_string": "  if not values:\n      raise ValueError(\"mean of an empty list\")\n  return sum(values) / (len(values) - 1)",
                       "new_string": "  if not values:\n      raise ValueError(\"mean of an empty list\")\n  return sum(values) / len(values)"}),
    ]),
    ("Now median(), as a patch.", [
        ("apply_patch", {"patch": "*** Begin Patch\n*** Update File: stats/core.py\n@@ def median(values):\n-    ordered = values\n+    ordered = sorted(values)\n*** End Patch"}),
    ]),
    ("The hook asks for the tests after every change.", [
        ("run_shell", {"command": "python3 -B -m unittest"}),
    ]),
    ("All four pass. One script to check the errors raised and the README's title together.", [
        ("execute", {"code": "raised = grep(pattern=\"raise ValueError\", output_mode=\"count\")\n"
                             "readme = read_file(path=\"README.md\")\n"
                             "print(raised.strip())\n"
                             "print(readme.splitlines()[0])"}),
    ]),
    ("Checking what else is around, in parallel.", [
        ("read_file", {"path": "../../etc/passwd"}),
        ("glob", {"pattern": "**/*.py"}),
    ]),
    ("The outside file is off limits, fine. Cleaning up the bytecode cache.", [
        ("run_shell", {"command": "cd tests && sudo rm -rf ../stats/__pycache__"}),
    ]),
    ("Done: mean() divides by the count, median() sorts first, and the four tests pass. "
     "I left the cache alone, as deleting is not allowed here.", []),
]


def chunk(number, delta, finish=None):
    return {"id": f"chatcmpl-agent{number:02}", "object": "chat.completion.chunk",
            "created": 1764300000 + number, "model": "gpt-recorded",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def pieces(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def turn_events(number, text, calls):
    events = [chunk(number, {"role": "assistant", "content": ""})]
    events += [chunk(number, {"content": piece}) for piece in pieces(text, 24)]
    for index, (name, arguments) in enumerate(calls):
        call_id = f"call_{number:02}_{index}"
        events.append(chunk(number, {"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                                     "function": {"name": name, "arguments": ""}}]}))
        for piece in pieces(json.dumps(arguments), 40):
            events.append(chunk(number, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(chunk(number, {}, "tool_calls" if calls else "stop"))
    return events


def main():
    out = []
    for number, (text, calls) in enumerate(TURNS, start=1):
        for event in turn_events(number, text, calls):
            out.append("data: " + json.dumps(event, separators=(",", ":")) + "\n\n")
        out.append("data: [DONE]\n\n")
    path = pathlib.Path(__file__).with_name("conversation.sse")
    path.write_text("".join(out))


if __name__ == "__main__":
    main()
