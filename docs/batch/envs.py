#!/usr/bin/env python3
"""An interpreter for each repository and version of a SWE-bench task list, for `acr batch --envs FILE`.

Reads the task list (JSON lines with `repo` and `version`) and the `swebench` package's specs
(`swebench.harness.constants.MAP_REPO_VERSION_TO_SPECS`, in swebench 1.x to 4.x: the Python version and the pip
packages of each `repo@version`, the ones SWE-bench's harness builds its environments from), and writes:

- ENVS/make.sh: the commands that make one virtual environment per `repo@version` with uv (`uv venv --python X`,
  then `uv pip install` of the spec's pip packages), and
- ENVS/envs.json: the map `acr batch --envs` reads, from `owner/name@version` to that environment's python.

Run make.sh, then give `--envs ENVS/envs.json` to `acr batch` (with `--runner local`). What this does not do, and
SWE-bench's own images do: conda environments (`packages: environment.yml`), the repository's requirements files
at its commit, `pre_install` system packages, and building the repository itself (`install`, e.g. `pip install -e .`,
which packages with compiled code such as astropy or scikit-learn need before their code imports). Those are listed
in make.sh as comments, per environment. Without --envs, every task's reproducers run in the one interpreter
`--python` gives (default: python3 on PATH).

    python3 docs/batch/envs.py swe-bench-lite.jsonl /envs     # then: sh /envs/make.sh
"""

import json
import shlex
import sys
from pathlib import Path


def specs():
    try:
        from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS
    except ImportError as e:
        sys.exit(
            f"no MAP_REPO_VERSION_TO_SPECS in this swebench ({e}): swebench 1.x to 4.x have it "
            "(pip install 'swebench<5'); swebench 5 keeps each task's environment with the task"
        )
    return MAP_REPO_VERSION_TO_SPECS


def main(tasks_path: str, root: str) -> None:
    root_dir = Path(root).resolve()
    wanted = set()
    for line in Path(tasks_path).read_text().splitlines():
        if line.strip():
            task = json.loads(line)
            if task.get("version") is not None:
                wanted.add((task["repo"], str(task["version"])))
    table = specs()
    script = ["#!/bin/sh", "set -eu", f"# one environment per repo@version of {tasks_path}, from swebench's specs"]
    envs = {}
    missing = []
    for repo, version in sorted(wanted):
        spec = table.get(repo, {}).get(version)
        if spec is None:
            missing.append(f"{repo}@{version}")
            continue
        folder = root_dir / f"{repo.replace('/', '__')}-{version}"
        python = folder / "bin" / "python"
        script.append(f"\n# {repo}@{version}: Python {spec['python']}")
        script.append(f"uv venv --python {shlex.quote(spec['python'])} {shlex.quote(str(folder))}")
        packages = list(spec.get("pip_packages", []))
        listed = spec.get("packages", "")
        if listed and listed not in ("requirements.txt", "environment.yml"):
            packages += listed.split()
        if packages:
            quoted = " ".join(shlex.quote(p) for p in packages)
            script.append(f"uv pip install --python {shlex.quote(str(python))} {quoted}")
        for key in ("pre_install", "install"):
            if spec.get(key):
                script.append(f"# not done here ({key}): {spec[key]}")
        if listed in ("requirements.txt", "environment.yml"):
            script.append(f"# not done here: the repository's {listed} at each task's commit")
        envs[f"{repo}@{version}"] = str(python)
    root_dir.mkdir(parents=True, exist_ok=True)
    (root_dir / "make.sh").write_text("\n".join(script) + "\n")
    (root_dir / "envs.json").write_text(json.dumps(envs, indent=1, sort_keys=True) + "\n")
    print(f"{len(envs)} environments: {root_dir / 'make.sh'} makes them, {root_dir / 'envs.json'} maps them")
    if missing:
        print(f"no spec for {len(missing)} (they use --python): {', '.join(missing)}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
