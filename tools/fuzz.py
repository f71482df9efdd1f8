#!/usr/bin/env python3
"""Builds the fuzz seed corpora and runs every cargo-fuzz target, printing one line of figures per target.

    python3 tools/fuzz.py --runs 10000000 --campaign   # `make fuzz` (FUZZ_RUNS=...)
    python3 tools/fuzz.py --seconds 5 --scratch --quick-build --sanitizer none   # the smoke in `make test`
    python3 tools/fuzz.py --runs 100000 --targets apply,syntax_gate

Seeds come from the repository's fixtures and, when it is there, ../shared/replay (recorded AutoCodeRover runs).
They are written at run time under fuzz/seeds/ and the corpora libFuzzer grows under fuzz/corpus/ (with --scratch,
in a temporary folder removed afterwards, so that a smoke takes the same time however long the corpus has grown);
neither is committed. Findings go to fuzz/artifacts/<target>/ (crash-*, timeout-*, oom-*). Every target runs with
-rss_limit_mb=2048 and -timeout=1 (an input taking over a second is a finding). libFuzzer's timeout is wall-clock
time, so each timeout input is run again alone: in fork mode (--fork, --campaign), where the run goes on after a
timeout, one that is quick alone was the machine's load and is reported without counting. The exit status is 1
when any target found something or failed to run.

Input formats are described in fuzz/src/lib.rs.
"""

import argparse
import base64
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "fuzz"
REPLAY = ROOT.parent / "shared" / "replay"

# Target name -> largest input libFuzzer generates. Larger inputs cost more per execution (apply and the gate run
# at a few hundred executions per second at 4 KiB under AddressSanitizer); archives need room for a file or two.
TARGETS = {
    "zip_loader": 16384,
    "parse_edits": 4096,
    "apply": 4096,
    "proxy_call": 1024,
    "proxy_extract": 4096,
    "syntax_gate": 4096,
    "search_args": 1024,
    "locate_request": 4096,
    "chat_response": 4096,
    "runner_request": 16384,
}
# The long runs' largest inputs (--campaign): a few times quicker per execution than the smoke's, which is what makes
# ten million executions of the slow targets a matter of hours rather than days; archives keep room for a file.
CAMPAIGN_LEN = {"zip_loader": 4096, "runner_request": 4096}
CAMPAIGN_DEFAULT_LEN = 1024
MAX_SEEDS = 400  # per target, so that loading the corpus stays quick
MAX_SEED_BYTES = 65536


def python_files(base, limit=None):
    files = sorted(p for p in base.rglob("*.py") if p.is_file())
    return files[:limit] if limit else files


def read(path):
    try:
        return path.read_bytes()
    except OSError:
        return b""


def replay_lines(path):
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def script_answers():
    """Every answer of the fixture model scripts and the demo script, by stage."""
    answers = []
    for script in sorted((ROOT / "tests/fixtures/scripts").glob("*.json")) + [ROOT / "web/demo/script.json"]:
        data = json.loads(script.read_text())
        for stage, texts in data.get("answers", {}).items():
            answers.extend((stage, t) for t in texts)
    return answers


def zip_of(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return buf.getvalue()


def fixture_trees():
    """(name, [(relative path, bytes)]) for the fixture repositories and a few small replay trees."""
    trees = []
    for base in (ROOT / "tests/fixtures/minirepo", ROOT / "web/demo"):
        trees.append((base.name, [(str(p.relative_to(base)), read(p)) for p in python_files(base)]))
    search = REPLAY / "search" / "acr-run-1"
    if search.exists():
        for case in sorted(search.iterdir())[:6]:
            files = [(str(p.relative_to(case / "repo")), read(p)) for p in python_files(case / "repo", 12)]
            trees.append((case.name, [(n, d) for n, d in files if len(d) < 8192]))
    return trees


def patch_cases():
    """(answer text, {path: file text}, expected diff) from the replay's patch cases."""
    base = REPLAY / "patch" / "acr-run-1"
    if not base.exists():
        return []
    cases = []
    for answer_dir in sorted(base.glob("*/answer_*")):
        files = {str(p.relative_to(answer_dir / "files")): read(p) for p in sorted((answer_dir / "files").rglob("*"))
                 if p.is_file()}
        diff = answer_dir / "expected.diff"
        cases.append((read(answer_dir / "response.txt"), files, read(diff) if diff.exists() else b""))
    return cases


def seeds_for(target):
    """The seed inputs (bytes) of one target."""
    answers = script_answers()
    if target == "zip_loader":
        out = [zip_of(files) for _, files in fixture_trees()]
        out += [zip_of([(f"top/{n}", d) for n, d in files]) for _, files in fixture_trees()[:2]]
        return out
    if target == "parse_edits":
        return [t.encode() for s, t in answers if s == "patch"] + [a for a, _, _ in patch_cases()]
    if target == "apply":
        out = []
        for answer, files, _ in patch_cases():
            first = next(iter(files.values()), b"")
            out.append(answer + b"\0" + first)
        demo = read(ROOT / "web/demo/inventory/cart.py")
        mini = read(ROOT / "tests/fixtures/minirepo/shop/orders.py")
        for stage, text in answers:
            if stage == "patch":
                out.append(text.encode() + b"\0" + (mini if "shop/" in text else demo))
        return out
    if target == "proxy_call":
        out = []
        for line in replay_lines(REPLAY / "proxy" / "acr-run-1.jsonl"):
            for attempt in line.get("attempts", []):
                try:
                    out += [c.encode() for c in json.loads(attempt).get("API_calls", []) if isinstance(c, str)]
                except (ValueError, AttributeError):
                    pass
        for stage, text in answers:
            if stage == "search":
                out += [l.encode() for l in text.splitlines() if "(" in l]
        return out
    if target == "proxy_extract":
        out = []
        for line in replay_lines(REPLAY / "proxy" / "acr-run-1.jsonl"):
            out.append(line.get("prose", "").encode())
            out += [a.encode() for a in line.get("attempts", [])]
        return out + [t.encode() for s, t in answers if s in ("search", "decide", "proxy")]
    if target == "syntax_gate":
        out = [d for _, files in fixture_trees() for _, d in files]
        out += [d for _, files, _ in patch_cases() for d in files.values() if len(d) < 16384]
        return out
    if target == "search_args":
        out = []
        search = REPLAY / "search" / "acr-run-1"
        if search.exists():
            for case in sorted(search.iterdir()):
                for call in replay_lines(case / "calls.jsonl"):
                    out.append(f"{call['api']}\n{json.dumps(call['args'])}".encode())
        out += [b'search_class\n{"class_name": "Cart"}', b'search_method_in_class\n["total", "Cart"]',
                b'search_code\n{"code_str": "units"}', b'get_code_around_line\n{"file_name": "cart.py", "line_no": 3}']
        return out
    if target == "locate_request":
        out = []
        for line in replay_lines(REPLAY / "proxy" / "acr-run-1.jsonl"):
            out += [a.encode() for a in line.get("attempts", []) if "bug_locations" in a and '"file"' in a]
        out += [t.encode() for s, t in answers if s in ("decide", "proxy")]
        out += [b"inventory/cart.py\0Cart\0total", b"orders.py\0\0__init__", b"\0Order\0Order.__init__"]
        return out
    if target == "chat_response":
        out = []
        for _, text in answers[:40]:
            body = {"id": "x", "object": "chat.completion", "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
            out.append((200).to_bytes(2, "big") + json.dumps(body).encode())
        for status, body in [(400, {"error": {"message": "bad request", "type": "invalid_request_error"}}),
                             (401, {"error": {"message": "Incorrect API key provided"}}),
                             (429, {"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}),
                             (500, {"detail": "internal"}), (200, {"choices": []})]:
            out.append(status.to_bytes(2, "big") + json.dumps(body).encode())
        out.append((200).to_bytes(2, "big") + b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: [DONE]\n')
        return out
    if target == "runner_request":
        out = []
        for name, files in fixture_trees()[:3]:
            texts = {n: d.decode("utf-8", "replace") for n, d in files}
            out.append(json.dumps({"files": texts, "command": "python3 r.py", "timeout_secs": 5}).encode())
            zipped = base64.b64encode(zip_of(files)).decode()
            out.append(json.dumps({"zip": zipped, "files": {"r.py": "print(1)\n"}, "patch": "",
                                   "command": "python3 -m pytest -q", "timeout_secs": 30}).encode())
        for answer, files, diff in patch_cases()[:80]:
            if diff and files:
                texts = {p: d.decode("utf-8", "replace") for p, d in files.items()}
                out.append(json.dumps({"files": texts, "patch": diff.decode("utf-8", "replace"),
                                       "command": "python3 reproducer.py", "timeout_secs": 20}).encode())
        return out
    raise ValueError(target)


def write_seeds(target):
    folder = FUZZ / "seeds" / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    kept = sorted({s for s in seeds_for(target) if 0 < len(s) <= MAX_SEED_BYTES}, key=lambda s: (len(s), s))
    if len(kept) > MAX_SEEDS:  # an even spread over the sizes
        step = len(kept) / MAX_SEEDS
        kept = [kept[int(i * step)] for i in range(MAX_SEEDS)]
    for seed in kept:
        (folder / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    return folder, len(kept)


FINAL = re.compile(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)")
STAT = re.compile(r"stat::(\w+):\s+(\d+)")
# Fork mode's progress lines (the last one stands for the run): executions, edges, features, corpus, exec/s.
FORK = re.compile(r"#(\d+): cov: (\d+) ft: (\d+) corp: (\d+) exec/s: (\d+) oom/timeout/crash")


def run_target(target, binary, budget, seeds, corpus, max_len, fork):
    artifacts = FUZZ / "artifacts" / target
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    before = set(os.listdir(artifacts))
    command = [str(binary), str(corpus), str(seeds), f"-max_len={max_len or TARGETS[target]}", "-rss_limit_mb=2048",
               "-timeout=1", "-print_final_stats=1", f"-artifact_prefix={artifacts}/", *budget]
    if fork:
        # Each chunk runs in a child process; a timeout is recorded and the run goes on (a crash or OOM stops it).
        command += ["-fork=1", "-ignore_timeouts=1"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace")
    elapsed = time.monotonic() - started
    log = done.stderr
    (FUZZ / "artifacts" / f"{target}.log").write_text(log)
    final = FINAL.findall(log)
    stats = dict(STAT.findall(log))
    if fork and FORK.findall(log):
        runs, edges, features, corpus_size, rate = FORK.findall(log)[-1]
        final = [(runs, edges, features, corpus_size, "")]
        stats.setdefault("number_of_executed_units", runs)
        stats.setdefault("average_exec_per_sec", str(int(int(runs) / max(1.0, time.monotonic() - started))))
    new = sorted(set(os.listdir(artifacts)) - before)
    count = lambda prefix: sum(1 for f in new if f.startswith(prefix))
    row = {
        "target": target,
        "runs": int(stats.get("number_of_executed_units", final[-1][0] if final else 0)),
        "exec_s": int(stats.get("average_exec_per_sec", 0)),
        "edges": int(final[-1][1]) if final else None,
        "features": int(final[-1][2]) if final else None,
        "corpus": int(final[-1][3]) if final else None,
        "rss_mb": int(stats.get("peak_rss_mb", 0)),
        "crashes": count("crash-") + count("leak-"),
        "timeouts": count("timeout-") + count("slow-unit-"),
        "ooms": count("oom-"),
        "seconds": elapsed,
        "ok": done.returncode == 0 and not new,
        "artifacts": [str(artifacts / f) for f in new],
    }
    if not final and done.returncode == 0:
        row["ok"] = False
        row["artifacts"].append(f"no final statistics; see {FUZZ / 'artifacts' / (target + '.log')}")
    # libFuzzer's timeout is wall-clock time: on a loaded machine a quick input can exceed it. Each timeout input is
    # run again on its own, and the report says how long it took. Without --fork it stays a finding (the run
    # stopped); with --fork the run went on, and an input quick alone is reported but not counted.
    quick = []
    for i, path in enumerate(row["artifacts"]):
        if Path(path).name.startswith(("timeout-", "slow-unit-")):
            again = time.monotonic()
            alone = subprocess.run([str(binary), "-timeout=10", path], cwd=ROOT, capture_output=True)
            took = time.monotonic() - again
            slow = took > 1 or alone.returncode != 0
            verdict = "slow again" if slow else "quick alone: the machine's load"
            row["artifacts"][i] = f"{path} (run alone: {took:.2f} s, {verdict})"
            if fork and not slow:
                quick.append(row["artifacts"][i])
    if quick:
        row["timeouts"] -= len(quick)
        row["artifacts"] = [a for a in row["artifacts"] if a not in quick]
        row["ok"] = done.returncode == 0 and not row["artifacts"]
        for a in quick:
            print(f"note: {target}: timeout under load, not a finding: {a}", file=sys.stderr)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    budget = parser.add_mutually_exclusive_group(required=True)
    budget.add_argument("--runs", type=int, help="executions per target")
    budget.add_argument("--seconds", type=int, help="seconds per target")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated subset")
    parser.add_argument("--scratch", action="store_true", help="grow the corpus in a temporary folder")
    parser.add_argument("--max-len", type=int, help="largest input for every target (default: per target)")
    parser.add_argument("--campaign", action="store_true",
                        help="the long-run settings: --fork, --sanitizer none, --no-trace-compares and the campaign's "
                             "input lengths")
    parser.add_argument("--no-trace-compares", action="store_true",
                        help="build without comparison tracing: about three times the executions per second of the "
                             "diff-heavy targets, with less guidance towards the constants the code compares with")
    parser.add_argument("--fork", action="store_true",
                        help="run in libFuzzer's fork mode: a timeout is recorded and the run goes on")
    parser.add_argument("--quick-build", action="store_true",
                        help="build with 16 codegen units at opt-level 1: a build in about half the time, for a "
                             "smoke, at some cost in executions per second")
    parser.add_argument("--sanitizer", default="address", choices=["address", "none"],
                        help="none runs several times faster; the targets are safe Rust apart from tree-sitter's C")
    args = parser.parse_args()
    if args.campaign:
        args.fork, args.sanitizer, args.no_trace_compares = True, "none", True
    targets = [t for t in args.targets.split(",") if t]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        sys.exit(f"unknown targets: {', '.join(unknown)} (known: {', '.join(TARGETS)})")
    if not REPLAY.exists():
        print(f"note: {REPLAY} is absent; seeds come from the fixtures only", file=sys.stderr)

    build = ["cargo", "+nightly", "fuzz", "build", "--sanitizer", args.sanitizer]
    build += ["--no-trace-compares"] if args.no_trace_compares else []
    build += targets if len(targets) == 1 else []
    # cargo-fuzz sets the codegen units itself (one unless told otherwise), over the profile's.
    build += ["--codegen-units", "16"] if args.quick_build else []
    # The workspace's release profile (fat LTO, size-optimised) does not link with the sanitizer coverage cargo-fuzz
    # adds ("undefined symbol: __sancov_gen_"); fuzz builds use their own settings.
    env = dict(os.environ, CARGO_PROFILE_RELEASE_LTO="false",
               CARGO_PROFILE_RELEASE_OPT_LEVEL="1" if args.quick_build else "3")
    started = time.monotonic()
    subprocess.run(build, cwd=ROOT, check=True, env=env)
    print(f"built the fuzz targets in {time.monotonic() - started:.0f} s", flush=True)
    target_dir = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    bin_dir = target_dir / "x86_64-unknown-linux-gnu" / "release"

    budget = [f"-runs={args.runs}"] if args.runs else [f"-max_total_time={args.seconds}"]
    header = f"{'target':<16}{'runs':>12}{'exec/s':>9}{'edges':>8}{'features':>10}{'corpus':>8}{'RSS MB':>8}" \
             f"{'crashes':>9}{'timeouts':>10}{'OOMs':>6}{'time':>8}"
    print(header)
    failed = []
    for target in targets:
        seeds, count = write_seeds(target)
        with tempfile.TemporaryDirectory(prefix=f"acr-fuzz-{target}-") as scratch:
            corpus = Path(scratch) if args.scratch else FUZZ / "corpus" / target
            max_len = args.max_len or (CAMPAIGN_LEN.get(target, CAMPAIGN_DEFAULT_LEN) if args.campaign else None)
            row = run_target(target, bin_dir / target, budget, seeds, corpus, max_len, args.fork)
        print(f"{target:<16}{row['runs']:>12,}{row['exec_s']:>9,}{row['edges'] or '?':>8}{row['features'] or '?':>10}"
              f"{row['corpus'] or '?':>8}{row['rss_mb']:>8}{row['crashes']:>9}{row['timeouts']:>10}{row['ooms']:>6}"
              f"{row['seconds']:>7.0f}s  ({count} seeds)", flush=True)
        if not row["ok"]:
            failed.append(row)
    for row in failed:
        print(f"FINDING in {row['target']}: {', '.join(row['artifacts']) or 'the fuzzer failed'}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
