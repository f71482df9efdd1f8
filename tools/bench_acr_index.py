#!/usr/bin/env python3
"""Native index speed against AutoCodeRover's own indexer, on the same trees, in one run.

Usage: python3 tools/bench_acr_index.py [--runs N] [--acr-src DIR] [--acr-python PY] [PROJECT==VERSION ...]

Each project is a source distribution from the Python package registry (sympy, astropy and Django by default),
downloaded once into target/bench-corpora and unpacked there. For each tree the bench times `acr index` (the release
build; its own "time:" line, which covers reading and parsing) and, when AutoCodeRover's source is given (a checkout
of nus-apr/auto-code-rover; `--acr-src` or $ACR_SRC), ACR's `SearchBackend._build_python_index` in a Python that has
ACR's imports (`--acr-python` or $ACR_PYTHON). Runs alternate between the two so that load on the machine hits both
alike; the median of each is printed with MB/s and the ratio. Prints figures; asserts nothing. Run by `make bench`.
"""

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / "target" / "bench-corpora"
ACR_BIN = ROOT / "target" / "release" / "acr"
DEFAULT = ["sympy==1.12", "astropy==6.0.1", "Django==5.0.6"]

# Runs inside ACR's Python: builds ACR's index of one tree and prints the milliseconds it took.
ACR_TIMER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from app.search.search_backend import SearchBackend
t = time.perf_counter()
SearchBackend._build_python_index(sys.argv[2])
print((time.perf_counter() - t) * 1000)
"""


def sdist_tree(spec: str) -> Path:
    """Downloads and unpacks a project's source distribution once; returns the unpacked tree."""
    name, version = spec.split("==")
    tree = CORPORA / f"{name}-{version}"
    if tree.is_dir():
        return next((p for p in tree.iterdir() if p.is_dir()), tree)
    # The registry's simple index (PEP 503) lists every file of a project; its JSON API is not reachable from every
    # machine, and `pip download --no-binary` would build each project's metadata (astropy's needs a compiler).
    page = urllib.request.urlopen(f"https://pypi.org/simple/{name.lower()}/", timeout=60).read().decode()
    wanted = f"{name}-{version}.tar.gz".lower()
    links = [m.split("#")[0] for m in re.findall(r'href="([^"]+)"', page)]
    url = next((u for u in links if u.lower().rsplit("/", 1)[-1] == wanted), None)
    if url is None:
        sys.exit(f"no source distribution {wanted} in the registry's index of {name}")
    print(f"downloading {url}", file=sys.stderr)
    data = urllib.request.urlopen(url, timeout=600).read()
    tree.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(tree, filter="data")
    return next(p for p in tree.iterdir() if p.is_dir())


def acr_wasm_ms(tree: Path) -> tuple[float, float, int]:
    """`acr index --json` on a tree: milliseconds indexing, milliseconds reading the folder, bytes of source."""
    out = subprocess.run([ACR_BIN, "index", "--json", tree], capture_output=True, text=True, check=True).stdout
    v = json.loads(out)
    return v["milliseconds"], v["load_milliseconds"], v["bytes"]


def acr_ms(python: str, src: str, tree: Path) -> float:
    """AutoCodeRover's index build on a tree, in milliseconds."""
    out = subprocess.run([python, "-c", ACR_TIMER, src, tree], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("projects", nargs="*", default=DEFAULT)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--acr-src", default=os.environ.get("ACR_SRC"))
    ap.add_argument("--acr-python", default=os.environ.get("ACR_PYTHON", sys.executable))
    args = ap.parse_args()
    if not ACR_BIN.exists():
        sys.exit(f"{ACR_BIN} is missing: cargo build --release -p acr-cli")
    if not args.acr_src:
        print("ACR's indexer skipped: give --acr-src (a checkout of nus-apr/auto-code-rover) for the ratio")
    # "index" is the index build alone; "read" is reading every file of the folder (ACR's figure covers reading the
    # Python files it parses, so the second ratio counts our whole folder read against it).
    print(f"{'tree':<16} {'MB':>6} {'index ms':>9} {'MB/s':>6} {'read ms':>8} {'ACR ms':>8} {'ratio':>6} {'with read':>10}")
    for spec in args.projects:
        tree = sdist_tree(spec)
        ours, reads, theirs, size = [], [], [], 0
        for _ in range(args.runs):
            ms, read, size = acr_wasm_ms(tree)
            ours.append(ms)
            reads.append(read)
            if args.acr_src:
                theirs.append(acr_ms(args.acr_python, args.acr_src, tree))
        mine, read = statistics.median(ours), statistics.median(reads)
        line = f"{tree.name:<16} {size / 1e6:>6.1f} {mine:>9.0f} {size / 1e3 / mine:>6.1f} {read:>8.0f}"
        if theirs:
            acr = statistics.median(theirs)
            line += f" {acr:>8.0f} {acr / mine:>5.1f}x {acr / (mine + read):>9.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
