#!/usr/bin/env python3
"""Index speed of JavaScript and TypeScript beside Python's, native: `acr index` (the release build) on a tree of each,
runs alternating between the trees so that load on the machine hits them alike; the median of acr's own `time:`
line (the index, not the folder's read) is printed as MB/s with each tree's bytes, and the ratio to Python's.
Prints figures; asserts nothing. Run by `make bench`.

Usage: python3 tests/bench/index_languages.py [--runs N]

Trees: Python, the largest replay tree of `pydata__xarray-5131` (../shared/replay); JavaScript, the packages npm
bundles (`$(npm root -g)/npm/node_modules`, copied into target/bench-corpora without their `.py` files, so that only
JavaScript is read); TypeScript, rxjs's sources (tests/typescript-sources, from tools/setup.sh test).
"""

import argparse
import re
import shutil
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
ACR = ROOT / "target" / "release" / "acr"


def javascript_tree() -> Path | None:
    """npm's bundled packages, copied out of `node_modules` (which the index leaves out) without Python files."""
    npm = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True).stdout.strip()
    source = Path(npm) / "npm" / "node_modules"
    if not source.is_dir():
        return None
    target = ROOT / "target" / "bench-corpora" / "npm-bundled"
    if not target.is_dir():
        shutil.copytree(source, target, symlinks=True)
        for python in target.rglob("*.py"):
            python.unlink()
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    if not ACR.exists():
        raise SystemExit(f"no {ACR}: cargo build --release -p acr-cli")
    trees = {
        "Python": ROOT.parent / "shared" / "replay" / "search" / "acr-run-1" / "pydata__xarray-5131" / "repo",
        "JavaScript": javascript_tree(),
        "TypeScript": ROOT / "tests" / "typescript-sources" / "node_modules" / "rxjs" / "src",
    }
    trees = {name: tree for name, tree in trees.items() if tree is not None and tree.is_dir()}
    if "Python" not in trees:
        print("skipped: ../shared/replay is absent")
        return
    speeds: dict[str, list[float]] = {name: [] for name in trees}
    sizes: dict[str, str] = {}
    for _ in range(args.runs):
        for name, tree in trees.items():
            out = subprocess.run([ACR, "index", tree], capture_output=True, text=True, check=True).stdout
            ms = float(re.search(r"time:\s+([\d.]+) ms", out).group(1))
            size = int(re.search(r"bytes:\s+(\d+)", out).group(1))
            files = re.search(r"languages:\s+(.*)", out).group(1)
            sizes[name] = f"{size:,} B, {files}"
            speeds[name].append(size / 1e6 / (ms / 1000))
    python = statistics.median(speeds["Python"])
    for name, tree in trees.items():
        median = statistics.median(speeds[name])
        print(f"{name} ({tree}; {sizes[name]}): {median:.1f} MB/s median of {args.runs} "
              f"(min {min(speeds[name]):.1f}, max {max(speeds[name]):.1f}); Python is {python / median:.1f}x as fast")


if __name__ == "__main__":
    main()
