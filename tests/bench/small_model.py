#!/usr/bin/env python3
"""A real small model through the CLI: SmolLM2-135M (llama.cpp's llama-server, started by tools/model_servers.py)
repairs the demo repository (web/demo) with `acr run`. Prints the model calls, tokens, seconds and outcome of each
run, and per stage how many answers were well formed.

    python3 tests/bench/small_model.py [--runs N] [--stream] [--tools] [--max-calls N] [--acr PATH]

Needs tools/setup.sh (the servers) and a built acr (`cargo build --release -p acr-cli`; `make bench` does both).
Without the servers it says "skipped" and exits 0.

When is an answer well formed? Read from transcript.json (core/src/agent/transcript.rs), each "model" event with
the event that follows it:
  - search: the next "proxy" event was read from the answer itself (source "deterministic", or "tools" for tool
    calls) and has at least one call or location. An answer the proxy model had to rewrite is not well formed.
  - proxy: the next "proxy" event (source "model") has at least one call or location and no problems.
  - patch: the next "patch" event's status says the answer held edits in the format (anything but NO_PATCH and
    RAW_PATCH_BUT_UNPARSED; an edit that does not match the code still counts as well formed).
  - every other stage (reproducer, review, select...): the answer is not empty and was not cut short.
An answer that was cut ("cut" set: cap, time, loop, broken, failed) is counted apart as well.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVERS = os.path.join(ROOT, "tools", "model_servers.py")
DEMO = os.path.join(ROOT, "web", "demo")
FORMED_PATCH = {"RAW_PATCH_BUT_UNMATCHED", "MATCHED_BUT_EMPTY_ORIGIN", "MATCHED_BUT_EMPTY_DIFF", "APPLICABLE_PATCH"}


def well_formed(model, following):
    """Whether the answer of the "model" event `model` is well formed, given the events after it (see above)."""
    stage = model.get("stage")

    def next_of(kind):
        for e in following:
            if e.get("event") == kind:
                return e
            if e.get("event") == "model":  # the next answer: nothing read this one
                return None
        return None

    if stage == "search":
        proxy = next_of("proxy")
        return bool(proxy and proxy.get("source") in ("deterministic", "tools")
                    and (proxy.get("calls") or proxy.get("locations")))
    if stage == "proxy":
        proxy = next_of("proxy")
        return bool(proxy and (proxy.get("calls") or proxy.get("locations")) and not proxy.get("problems"))
    if stage == "patch":
        patch = next_of("patch")
        return bool(patch and patch.get("status") in FORMED_PATCH)
    return bool(model.get("answer", "").strip()) and not model.get("cut")


def read_run(out):
    """(outcome.json, the transcript's events) of an `acr run --out OUT`; OSError when the run wrote none."""
    with open(os.path.join(out, "outcome.json")) as f:
        outcome = json.load(f)
    with open(os.path.join(out, "transcript.json")) as f:
        events = json.load(f)["events"]
    return outcome, events


def one_run(acr, server, args):
    out = tempfile.mkdtemp(prefix="acr-bench-small-")
    command = [acr, "run", DEMO, "--issue", os.path.join(DEMO, "ISSUE.md"), "--endpoint", server["base_url"],
               "--model", server["model"], "--out", out, "--max-calls", str(args.max_calls),
               "--max-seconds", str(args.max_seconds), "--timeout", "120", "--overall-retries", "1"]
    if args.stream:
        command.append("--stream")
    if args.tools:
        command.append("--tools")
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.monotonic() - started
    try:
        outcome, events = read_run(out)
    except OSError:
        sys.stderr.write(f"acr run wrote no outcome (exit {done.returncode}):\n{done.stderr[-3000:]}\n")
        sys.exit(1)
    stages = defaultdict(lambda: [0, 0, 0])  # answers, well formed, cut
    for i, e in enumerate(events):
        if e.get("event") != "model":
            continue
        counts = stages[e.get("stage", "?")]
        counts[0] += 1
        counts[1] += well_formed(e, events[i + 1:])
        counts[2] += bool(e.get("cut"))
    usage = outcome.get("usage", {})
    stopped = outcome.get("stopped") or {}
    return {
        "exit": done.returncode, "seconds": seconds, "calls": outcome.get("model_calls", 0),
        "prompt": usage.get("prompt_tokens", 0), "completion": usage.get("completion_tokens", 0),
        "status": outcome.get("status", "?"), "stopped": stopped.get("kind", "-"), "stages": stages,
        "out": out,
    }


def main():
    parser = argparse.ArgumentParser(description="SmolLM2-135M through `acr run` on the demo repository")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--stream", action="store_true", help="streamed answers")
    parser.add_argument("--tools", action="store_true", help="offer the search APIs as tools")
    parser.add_argument("--max-calls", type=int, default=20)
    parser.add_argument("--max-seconds", type=float, default=180)
    parser.add_argument("--acr", default=os.path.join(ROOT, "target", "release", "acr"))
    args = parser.parse_args()
    if not os.path.exists(args.acr):
        sys.exit(f"no acr at {args.acr}: cargo build --release -p acr-cli")

    started = subprocess.run([sys.executable, SERVERS, "start", "llama"], stdout=subprocess.PIPE, text=True)
    if started.returncode == 3:
        print("small model bench: skipped (the servers are not installed; run tools/setup.sh)")
        return
    if started.returncode != 0:
        sys.exit("small model bench: llama-server did not start")
    server = json.loads(started.stdout)
    try:
        runs = [one_run(args.acr, server, args) for _ in range(args.runs)]
    finally:
        subprocess.run([sys.executable, SERVERS, "stop", str(server["pid"])])

    manner = ", ".join(["streamed" if args.stream else "not streamed"] + (["tools"] if args.tools else []))
    print(f"SmolLM2-135M-Instruct (Q4_1) on llama-server, 1 thread, {manner}; acr run on web/demo, "
          f"--max-calls {args.max_calls} --max-seconds {args.max_seconds:g} --overall-retries 1")
    print(f"{'run':>3}  {'calls':>5}  {'tokens in':>9}  {'out':>6}  {'seconds':>7}  {'exit':>4}  "
          f"{'status':<24}  stopped")
    for i, r in enumerate(runs, 1):
        print(f"{i:>3}  {r['calls']:>5}  {r['prompt']:>9}  {r['completion']:>6}  {r['seconds']:>7.1f}  "
              f"{r['exit']:>4}  {r['status']:<24}  {r['stopped']}")
    total = defaultdict(lambda: [0, 0, 0])
    for r in runs:
        for stage, counts in r["stages"].items():
            total[stage] = [a + b for a, b in zip(total[stage], counts)]
    print()
    print(f"{'stage':<13}  {'answers':>7}  {'well formed':>11}  {'share':>6}  {'cut':>4}")
    for stage, (answers, formed, cut) in sorted(total.items(), key=lambda kv: -kv[1][0]):
        print(f"{stage:<13}  {answers:>7}  {formed:>11}  {formed / answers:>6.0%}  {cut:>4}")
    print(f"\n(transcripts: {', '.join(r['out'] for r in runs)})")


if __name__ == "__main__":
    main()
