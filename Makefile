# Build driver for acr-wasm. The two commands a new user needs:
#   make play   install what the playground needs (tools/setup.sh play), build it and serve it at http://127.0.0.1:8765
#   make test   install what the tests need besides (tools/setup.sh test) and run every test suite (native, wasm in
#               Node and Chromium, end-to-end in Chromium, the npm package and the WIT component in Node and wasmtime)
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
PORT ?= 8765
WEB_WASM := target/wasm32-unknown-unknown/release/acr-web.wasm
PKG_WASM := target/wasm32-unknown-unknown/size/acr_wasm.wasm
COMPONENT_CORE := target/wasm32-unknown-unknown/size/acr_component.wasm
COMPONENT := dist/acr_core.component.wasm
WASM_OPT := web/node_modules/.bin/wasm-opt
JCO := tests/node_modules/.bin/jco
# Python in the tab: Pyodide from npm (the version the worker names) and micropip from the Python package registry.
PYODIDE_VERSION := 314.0.7
PYODIDE_FILES := pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json
MICROPIP_WHEEL := web/wheels/micropip-0.11.1-py3-none-any.whl
export WASM_BINDGEN_TEST_TIMEOUT ?= 120
FUZZ_RUNS ?= 10000000
FUZZ_SMOKE_SECONDS ?= 5
# The playground: release profile, its parser built for speed.
WASM_RELEASE := cargo build --release --target wasm32-unknown-unknown -p acr-web
# The npm package and the component are built for size: the `size` profile (opt-level "z" throughout), with nightly
# (installed by `make setup`, with its rust-src) building std for size too and turning panics into an immediate trap
# (without a panic hook, a panic already ended in a trap with no message). Output in target/wasm32-unknown-unknown/size/.
# One cargo run per crate: the component takes the core without `zip` and `java`, which a shared run would unify in.
WASM_SIZE := RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort" cargo +nightly build --profile size \
  --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size
# wasm-opt -Oz without memory-packing: the pass splits the data into thousands of segments around runs of zeros,
# smaller raw but larger gzipped (component 396,706 -> 387,980 B gzip -9 without it; package 537,365 -> 516,842 B).
WASM_OPT_SIZE := -Oz --skip-pass=memory-packing

.PHONY: bench play setup setup-play web pkg component test lint lint-host test-native test-wasm test-e2e test-node fuzz fuzz-smoke clean

play: web
	python3 tools/serve.py dist $(PORT)

## Benchmarks (figures, not tests): `acr apply` against AutoCodeRover's apply with pylint (set ACR_SRC to a checkout of
## ACR for its side); QuixBugs' visible half repaired by Qwen2.5-Coder-1.5B and SmolLM2-135M on llama-server (the
## bench fetches Qwen into ~/.cache/acr-wasm once); index, search, locate and patch natively, the partial-answer and
## history replays; index in wasm against native; hostile
## sources natively (time, peak heap) and the largest accepted zip in the tab (time, wasm memory); `acr index` against
## AutoCodeRover's own indexer on sympy, astropy and Django (set ACR_SRC to a checkout of ACR for the ratio); Python in
## the tab (cold start, warm run, pytest, bytes downloaded, second load from the cache); sympy and Django dropped into
## the tab (worker pool) and reloaded (index cache), against native; a zip of more than 100 MiB of Python in the tab;
## the index's JavaScript and TypeScript definitions against the typescript package's parser on real npm packages.
bench: pkg
	cargo build -q --release -p acr-cli
	python3 tools/bench_apply.py
	python3 tests/bench/small_model.py --stream
	python3 tests/bench/quixbugs.py --model qwen2.5-coder-1.5b
	python3 tests/bench/quixbugs.py --model smollm2
	cargo bench -q -p acr-core
	ACR_JAVAC_FULL=1 cargo test -q -p acr-core --features java --test gate_javac -- --nocapture
	node tests/bench/index.mjs
	ACR_BIN=target/release/acr node tests/bench/ts_declarations.mjs
	python3 tools/bench_acr_index.py
	python3 tests/bench/index_languages.py
	$(MAKE) web
	node tests/bench/tab_load.mjs
	node tests/bench/tab_index.mjs
	node tests/bench/tab_large_zip.mjs
	node tests/bench/tab_small_model.mjs
	cd tests && node bench/tab-python.mjs

## What `make play` needs (the playground's build and Python for the tab), and what `make test` needs besides; each
## thing installed is checked by using it (tools/setup.sh says how).
setup-play:
	@bash tools/setup.sh play

setup:
	@bash tools/setup.sh test

## The playground: release build, wasm-bindgen, wasm-opt (npm binaryen; Debian's breaks the
## module), static files (with the workers that run Python and JavaScript in the tab), and Python for the tab: Pyodide's files under a versioned folder (served as immutable), the
## worker, micropip.
web: setup-play
	$(WASM_RELEASE)
	rm -rf dist/pkg && mkdir -p dist/pkg
	wasm-bindgen --target web --no-typescript --out-dir dist/pkg --out-name acr_web $(WEB_WASM)
	if [ -x $(WASM_OPT) ]; then $(WASM_OPT) -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
	  dist/pkg/acr_web_bg.wasm -o dist/pkg/acr_web_bg.wasm; fi
	node tools/glue-factory.mjs dist/pkg/acr_web.js dist/pkg/acr_web_instances.js
	rm dist/pkg/acr_web.js
	cp index.html web/style.css web/boot.js web/js/python-worker.mjs web/js/python_run.py web/js/index-worker.mjs \
	  web/js/index-cache.mjs web/js/script-worker.mjs web/js/node-builtins.mjs web/js/worker-common.mjs dist/
	@grep -q '"version": "$(PYODIDE_VERSION)"' web/node_modules/pyodide/package.json || \
	  { echo "web/node_modules/pyodide is not $(PYODIDE_VERSION) (run make setup-play)"; exit 1; }
	@grep -q 'PYODIDE_VERSION = "$(PYODIDE_VERSION)"' web/js/python-worker.mjs || \
	  { echo "web/js/python-worker.mjs names another Pyodide than $(PYODIDE_VERSION)"; exit 1; }
	rm -rf dist/pyodide && mkdir -p dist/pyodide/$(PYODIDE_VERSION)
	cp $(addprefix web/node_modules/pyodide/,$(PYODIDE_FILES)) dist/pyodide/$(PYODIDE_VERSION)/
	cp $(MICROPIP_WHEEL) dist/pyodide/
	@echo "built dist/ ($$(stat -c %s dist/pkg/acr_web_bg.wasm) bytes of wasm," \
	  "$$(du -cb dist/pyodide | tail -1 | cut -f1) bytes of Python for the tab)"

## The npm package in pkg/dist: built for size (WASM_SIZE), wasm-bindgen --target web, wasm-opt -Oz, the package's
## own files.
pkg: setup
	$(WASM_SIZE) -p acr-wasm
	rm -rf pkg/dist && mkdir -p pkg/dist
	wasm-bindgen --target web --out-dir pkg/dist --out-name acr_wasm $(PKG_WASM)
	$(WASM_OPT) $(WASM_OPT_SIZE) --enable-bulk-memory --enable-nontrapping-float-to-int --enable-reference-types \
	  pkg/dist/acr_wasm_bg.wasm -o pkg/dist/acr_wasm_bg.wasm
	node tools/glue-factory.mjs pkg/dist/acr_wasm.js pkg/dist/acr_wasm_instances.js
	rm pkg/dist/acr_wasm.js
	cp pkg/package.json pkg/README.md pkg/index.js pkg/index.d.ts LICENSE-MIT LICENSE-APACHE pkg/dist/
	@echo "built pkg/dist: acr_wasm_bg.wasm $$(stat -c %s pkg/dist/acr_wasm_bg.wasm) B raw," \
	  "$$(gzip -9 -c pkg/dist/acr_wasm_bg.wasm | wc -c) B gzip -9"

## The WIT component: the guest for wasm32-unknown-unknown (core without zip), built for size (WASM_SIZE), wasm-opt
## -Oz (it keeps the component-type section), wrapped by `jco new`, without the name and producer sections (tools/strip_names.py). No imports.
component: setup
	$(WASM_SIZE) -p acr-component
	mkdir -p dist
	$(WASM_OPT) $(WASM_OPT_SIZE) --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	  --enable-mutable-globals $(COMPONENT_CORE) -o $(COMPONENT_CORE:.wasm=.opt.wasm)
	$(JCO) new $(COMPONENT_CORE:.wasm=.opt.wasm) -o $(COMPONENT)
	python3 tools/strip_names.py $(COMPONENT)
	@echo "built $(COMPONENT): $$(stat -c %s $(COMPONENT)) B raw, $$(gzip -9 -c $(COMPONENT) | wc -c) B gzip -9"

test: setup lint component test-native test-wasm test-e2e test-node fuzz-smoke
	@echo "all suites passed"

## Fuzzing (nightly and cargo-fuzz, from setup): every target for FUZZ_RUNS executions (`make fuzz FUZZ_RUNS=100000`
## for a shorter run), with seeds built at run time from the fixtures and ../shared/replay, in libFuzzer's fork mode
## without a sanitizer or comparison tracing and with short inputs (`--campaign`; the smoke keeps both). Prints
## executions per second, edges covered and crashes/timeouts/OOMs per target; fails on any finding (fuzz/artifacts/).
fuzz: setup
	python3 tools/fuzz.py --runs $(FUZZ_RUNS) --campaign

## The fuzz smoke in `make test`: every target for FUZZ_SMOKE_SECONDS seconds from its seeds alone, built quickly
## (16 codegen units, opt-level 1) and without a sanitizer, like the campaigns: the build is most of the smoke's time.
fuzz-smoke: setup
	python3 tools/fuzz.py --seconds $(FUZZ_SMOKE_SECONDS) --scratch --quick-build --sanitizer none

## The component is linted on its own: with the others, cargo would unify the core's `zip` feature into it. The
## playground and the package take the same core features, so one check build serves both.
## The wasmtime host tests are linted by `make lint-host` (a check build of wasmtime: 1 min 40 s on 2 cores).
lint:
	cargo fmt --all --check
	cargo clippy -q -p acr-core -p acr-cli -p acr-runner -p acr-wasm -p acr-fuzz --all-targets -- -D warnings
	cargo clippy -q -p acr-web -p acr-wasm --target wasm32-unknown-unknown -- -D warnings
	cargo clippy -q -p acr-component --target wasm32-unknown-unknown -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc -q --no-deps -p acr-core

lint-host:
	cargo clippy -q -p acr-component-host --all-targets -- -D warnings

## Native tests, the wasmtime host tests included (they skip with a message when the component is not built).
test-native:
	cargo test -q
	cargo test -q -p acr-web   # the playground's pure parts (diff parsing, colouring, settings checks) run natively

## The core compiled to wasm32, in Node and in headless Chromium (wasm-bindgen-test-runner + chromedriver).
test-wasm:
	cargo test --target wasm32-unknown-unknown -p acr-core --test wasm
	WASM_BINDGEN_USE_BROWSER=1 cargo test --target wasm32-unknown-unknown -p acr-core --test wasm

## Two test files at a time: much of each is spent waiting on a browser, a Python worker or a time limit.
test-e2e: web
	cargo build -q -p acr-cli -p acr-runner
	cd tests && node --test --test-concurrency=2 --test-reporter=spec e2e/

## The npm package in Node and headless Chromium, and the component in Node through `jco transpile`.
test-node: pkg component
	rm -rf tests/node/out
	cd tests && node --test --test-reporter=spec node/

clean:
	cargo clean
	rm -rf dist pkg/dist web/node_modules web/wheels tests/node_modules tests/typescript-sources/node_modules tests/e2e/out tests/node/out
