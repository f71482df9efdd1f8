// Starts the playground and keeps it alive. The page is one WebAssembly instance (the Leptos UI and the core
// together). If that instance traps (it ran out of memory, or a bug), its state cannot be trusted: this script
// retires it (every later call into it throws `RetiredInstance`, which is ignored here), clears the page, shows what
// happened and starts a fresh instance from the already compiled module. Settings live in localStorage and the issue
// text in sessionStorage, so they survive; the repository has to be loaded again, and the banner says so.
import { createInstance, RetiredInstance } from "./pkg/acr_web_instances.js";
import { indexCache } from "./index-cache.mjs";

// The index cache (web/src/index_cache.rs) and the compiled module the indexing workers instantiate
// (web/src/index_pool.rs).
window.__acrIndexCache = indexCache;
// What a reload restores, read while the module compiles (taken once by web/src/index_cache.rs).
window.__acrRestore = indexCache.restore().catch(() => undefined);

const WASM = new URL("./pkg/acr_web_bg.wasm", import.meta.url);
let module;
let current;
let restarts = 0;

/** Whether an exception means the instance stopped mid-call. */
function isTrap(e) {
  return e instanceof WebAssembly.RuntimeError || (e instanceof RangeError && /call stack/i.test(e.message));
}

function banner(text) {
  const p = document.createElement("p");
  p.id = "core-restarted";
  p.className = "error fatal";
  p.setAttribute("role", "alert");
  p.textContent = text;
  return p;
}

function start() {
  const core = createInstance();
  core.initSync({ module });
  current = core;
}

function restart(error) {
  restarts += 1;
  current.__retire();
  // The old instance's workers (its Python, web/src/worker.rs) would run on with nobody to stop them.
  for (const worker of window.__acrWorkers) worker.terminate();
  window.__acrWorkers.clear();
  // What a panic hook recorded just before the trap says more than "unreachable".
  const detail = window.__acrLastPanic ?? String(error);
  window.__acrLastPanic = undefined;
  document.body.replaceChildren(banner(
    `The playground's core stopped (${detail}) and was restarted, so the page keeps working. `
      + "Your settings and issue text were kept; load the repository again. "
      + "If it happens again with the same repository, it is probably too large for the tab: try the acr command line.",
  ));
  start();
}

function onError(error, event) {
  if (error instanceof RetiredInstance) {
    event.preventDefault(); // a callback of a retired instance: expected, and harmless
    return;
  }
  if (!isTrap(error)) return;
  event.preventDefault();
  restart(error);
}

window.addEventListener("error", (e) => onError(e.error, e));
window.addEventListener("unhandledrejection", (e) => onError(e.reason, e));
window.__acrWorkers = new Set();
window.acrRestarts = () => restarts;
window.acrMemoryBytes = () => current.__memoryBytes();
// Tests and benchmarks run commands in the page's Python as the agent does (web/src/tab_runner).
window.acrRunInTab = (request) => current.runInTab(request);
window.acrTabPythonReadiness = () => current.tabPythonReadiness();

try {
  module = await WebAssembly.compileStreaming(fetch(WASM));
  window.__acrWasmModule = module;
  start();
} catch (e) {
  document.body.insertAdjacentHTML("afterbegin",
    `<p class="error" role="alert">The playground failed to start: ${String(e).replace(/</g, "&lt;")}</p>`);
}
