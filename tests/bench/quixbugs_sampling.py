#!/usr/bin/env python3
"""How often a model writes a QuixBugs fix when asked directly, outside the agent: the ceiling sampling can reach.

    python3 tests/bench/quixbugs_sampling.py --tasks kheapsort,subsequences [--n 8] [--prompt minimal|small]
                                             [--from-transcript FILE --event N] [--url URL]

Each sample is one chat request to a running OpenAI-compatible server (`--url`, default a llama-server on
localhost:8099, started as the QuixBugs bench starts it: `llama-server -m MODEL -c 8192 -t 2 --port 8099`) at the
server's default sampling. The request shows the issue the bench writes (`quixbugs.make_task`) and the buggy
function, and asks for the fixed function (`--prompt minimal`: explain, then the function; `small`: also says the
bug is small and to change as little as it can). With `--from-transcript`, the request is instead the one recorded
in an `acr run` transcript (`--keep`'s `out/transcript.json`) at event `--event`, with the patch writer's system
message: the agent's own opening request, or any later one. The first fenced block that defines the task's function
is put in place of the program and QuixBugs' own tests judge it. Prints each sample's verdict and the count.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quixbugs  # noqa: E402

ASK = {
    "minimal": "Write the fixed function in full in a python code fence. Before the code, explain in one or two "
    "sentences what is wrong.",
    "small": "The bug is small: find the line that is wrong and change as little as you can. Say which line is "
    "wrong and why, then write the fixed function in full in a python code fence.",
}
# The patch writer's system message for Python (core/src/prompt/text.rs), for requests read from a transcript.
PATCH_SYSTEM = ("You are a senior Python developer. You write minimal, correct patches for issue reports. You never "
                "edit test files and you keep the surrounding code style.")


def direct_request(task, prompt):
    """The issue the bench writes and the buggy function, asking for the fixed function."""
    with tempfile.TemporaryDirectory() as work:
        _, issue_path = quixbugs.make_task(task, work)
        issue = open(issue_path).read()
    source = open(os.path.join(quixbugs.QUIXBUGS, "python_programs", f"{task}.py")).read()
    code = source.split('\n"""')[0].strip() + "\n"
    text = (f"Here is an issue reported on a repository:\n\n{issue}\n\nThe code at fault, in {task}.py:\n\n"
            f"```python\n{code}```\n\n{ASK[prompt]}")
    return [{"role": "user", "content": text}]


def recorded_request(path, event):
    """The request an `acr run` transcript recorded at `event`, after the patch writer's system message."""
    recorded = json.load(open(path))["events"][event]
    return [{"role": "system", "content": PATCH_SYSTEM}, {"role": "user", "content": recorded["prompt"]}]


def passes(task, answer):
    """Whether the answer's first fenced block defining the task's function passes QuixBugs' tests."""
    blocks = [b for b in re.findall(r"```(?:python)?\n(.*?)```", answer, re.S) if f"def {task}" in b]
    if not blocks:
        return False
    with tempfile.TemporaryDirectory() as work:
        repo = os.path.join(work, "repo")
        os.makedirs(repo)
        with open(os.path.join(repo, f"{task}.py"), "w") as f:
            f.write(blocks[0])
        return quixbugs.resolved(task, repo)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--prompt", choices=sorted(ASK), default="minimal")
    parser.add_argument("--from-transcript")
    parser.add_argument("--event", type=int)
    parser.add_argument("--url", default="http://localhost:8099/v1/chat/completions")
    args = parser.parse_args()
    for task in args.tasks.split(","):
        if args.from_transcript:
            messages, label = recorded_request(args.from_transcript, args.event), f"event {args.event}"
        else:
            messages, label = direct_request(task, args.prompt), args.prompt
        passed = 0
        for i in range(args.n):
            started = time.time()
            body = json.dumps({"messages": messages, "max_tokens": 1536}).encode()
            request = urllib.request.Request(args.url, body, {"Content-Type": "application/json"})
            answer = json.load(urllib.request.urlopen(request, timeout=600))["choices"][0]["message"]["content"]
            ok = passes(task, answer)
            passed += ok
            print(f"{task} ({label}) sample {i + 1}: {'passes' if ok else 'fails'} ({time.time() - started:.0f} s)",
                  flush=True)
        print(f"{task} ({label}): {passed} of {args.n} pass QuixBugs' tests")


if __name__ == "__main__":
    main()
