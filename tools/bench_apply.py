#!/usr/bin/env python3
"""`acr apply` against AutoCodeRover's own apply, one edit to a 4,000-line module, whole processes, in one run.

Usage: python3 tools/bench_apply.py [--runs N] [--acr-src DIR] [--acr-python PY] [--lines N] [--file PY_FILE]
                                    [--baseline ACR_BINARY]

The module is generated (classes of eight methods, every line of it unique, about --lines lines) unless --file names
a Python file to edit instead. The answer changes one line of the method nearest the middle, in AutoCodeRover's
`<file>/<original>/<patched>` format. The bench times the release `acr apply DIR ANSWER` (exit 0: the patch applies)
and, when AutoCodeRover's source is given (a checkout of nus-apr/auto-code-rover: `--acr-src` or $ACR_SRC), a Python
process that does what ACR does with the same answer: `parse_edits` and `apply_edit` from `app/agents/patch_utils.py`,
whose gate is `pylint --errors-only` on the new file (pylint 3.2.3, as ACR pins; `--acr-python` or $ACR_PYTHON names
a Python that has it; by default a venv under ~/.cache/acr-wasm/pylint, made on first use from the package
registry). Runs
alternate between the two so that load on the machine hits both alike; prints each one's median and the median of
the pairwise ratios. `--baseline` names another `acr` binary (an earlier build: `git worktree add ... OLD && cargo
build --release` there) to time against this one the same way, in turn. Prints figures; asserts only that each side
applied the edit. Run by `make bench`.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACR_BIN = ROOT / "target" / "release" / "acr"
PYLINT_VENV = Path.home() / ".cache" / "acr-wasm" / "pylint"

# Runs inside ACR's Python: the file is put back first (ACR's apply writes it), then ACR's own parse and apply.
ACR_APPLY = """
import shutil, sys
sys.path.insert(0, sys.argv[1])
from app.agents.patch_utils import apply_edit, parse_edits
shutil.copyfile(sys.argv[2], sys.argv[3])
edits = parse_edits(open(sys.argv[4]).read())
assert len(edits) == 1, edits
sys.exit(0 if apply_edit(edits[0], sys.argv[3]) else 3)
"""


def module(lines: int) -> str:
    """A module of about `lines` lines with no two lines alike."""
    out = ['"""Widgets for the apply bench."""', "import os", "import sys", "", ""]
    c = 0
    while len(out) < lines:
        out += [f"class Widget{c}(object):", f'    """Widget number {c}."""', ""]
        for m in range(8):
            k = c * 8 + m
            out += [
                f"    def method_{k}(self, value_{k}, *args, **kwargs):",
                f"        total_{k} = value_{k} + {k}",
                f"        for item_{k} in args:",
                f"            total_{k} += len(str(item_{k})) * {k}",
                f"        return total_{k}",
                "",
            ]
        out.append("")
        c += 1
    return "\n".join(out) + "\n"


def answer(text: str, name: str) -> str:
    """An answer that changes the last line but one of the `def` nearest the middle of `text`."""
    lines = text.split("\n")
    defs = [i for i, line in enumerate(lines) if line.lstrip().startswith("def ")]
    if not defs:
        sys.exit("the file has no function to edit")
    start = min(defs, key=lambda i: abs(i - len(lines) // 2))
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    original = lines[start:end]
    patched = original[:-1] + [original[-1] + "  # patched"]
    body = "\n".join(original), "\n".join(patched)
    return f"```\n<file>{name}</file>\n<original>\n{body[0]}\n</original>\n<patched>\n{body[1]}\n</patched>\n```\n"


def pylint_python() -> Path | None:
    """The default Python for ACR's side: a venv with ACR's pinned pylint, made once."""
    python = PYLINT_VENV / "bin" / "python"
    if python.exists():
        return python
    print(f"making {PYLINT_VENV} (pylint 3.2.3, as AutoCodeRover pins it)")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(PYLINT_VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "pylint==3.2.3", "astroid==3.2.3"]
        subprocess.run(pip, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"could not make the pylint venv: {e}")
        return None
    return python


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--lines", type=int, default=4000)
    ap.add_argument("--file", type=Path)
    ap.add_argument("--acr-src", default=os.environ.get("ACR_SRC"))
    ap.add_argument("--acr-python", default=os.environ.get("ACR_PYTHON"))
    ap.add_argument("--baseline", type=Path, help="another acr binary, timed against this build in turn")
    args = ap.parse_args()
    if not ACR_BIN.exists():
        sys.exit(f"{ACR_BIN} is missing: cargo build --release -p acr-cli")
    text = args.file.read_text() if args.file else module(args.lines)
    with tempfile.TemporaryDirectory(prefix="acr-apply-bench-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        target = repo / "widgets.py"
        target.write_text(text)
        # ACR's apply writes the file: it works on a copy of its own, put back before each run.
        pristine = Path(tmp) / "widgets.orig.py"
        shutil.copyfile(target, pristine)
        acr_copy = Path(tmp) / "acr-repo" / "widgets.py"
        acr_copy.parent.mkdir()
        answer_file = Path(tmp) / "answer.txt"
        answer_file.write_text(answer(text, "widgets.py"))
        print(f"module: {text.count(chr(10))} lines, {len(text.encode())} bytes; one edit near the middle")
        ours_cmd = [str(ACR_BIN), "apply", str(repo), str(answer_file)]
        theirs_cmd = None
        their_name = "AutoCodeRover apply + pylint (process)"
        acr_python = (args.acr_python or pylint_python()) if args.acr_src and not args.baseline else None
        if args.baseline:
            theirs_cmd = [str(args.baseline), "apply", str(repo), str(answer_file)]
            their_name = f"{args.baseline.name} apply, baseline (process)"
        elif acr_python:
            theirs_cmd = [str(acr_python), "-c", ACR_APPLY, args.acr_src, str(pristine), str(acr_copy), str(answer_file)]
        else:
            print("AutoCodeRover's apply skipped: give --acr-src (or $ACR_SRC), a checkout of nus-apr/auto-code-rover")
        timed(ours_cmd)  # warm-up: the page cache, the binary
        if theirs_cmd:
            timed(theirs_cmd)
        ours, theirs = [], []
        for _ in range(args.runs):
            ours.append(timed(ours_cmd))
            if theirs_cmd:
                theirs.append(timed(theirs_cmd))
        ms = lambda xs: statistics.median(xs) * 1e3  # noqa: E731
        print(f"acr apply (whole process)               median {ms(ours):8.1f} ms  min {min(ours) * 1e3:8.1f} ms")
        if theirs:
            print(f"{their_name:<39} median {ms(theirs):8.1f} ms  min {min(theirs) * 1e3:8.1f} ms")
            ratios = [t / o for o, t in zip(ours, theirs)]
            print(f"ratio (pairwise, {args.runs} pairs)            median {statistics.median(ratios):6.1f}x "
                  f"min {min(ratios):6.1f}x  max {max(ratios):6.1f}x")


if __name__ == "__main__":
    main()
