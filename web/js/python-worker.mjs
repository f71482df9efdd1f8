// The playground's Python, in a dedicated module worker: Pyodide runs commands such as `python3 reproducer.py` or
// `python3 -m pytest` on a repository snapshot, with the exit code, output and streams CPython would give.
//
// Messages (the Rust side's types are in web/src/tab_runner/protocol.rs):
//   page → worker  {kind: "setup", id, packages: {wheels: [{name, bytes}], requirements: [...], index_url},
//                   output_bytes, memory_bytes}
//                  {kind: "run", id, files: {path: text}, argv: [...]}
//   worker → page  {kind: "ready", id, python, pyodide, installed: [{name, version, source}], failed: [...]}
//                  {kind: "output", id, stdout, stderr, truncated}   (what a run printed so far, every 250 ms)
//                  {kind: "done", id, exit_code, stdout, stderr, truncated, missing_modules, heap_bytes}
//                  {kind: "failed", id, message, cause}   (cause: "memory", "stack" or "error")
//
// Containment: Pyodide and the package installer get the network while the worker is set up; then, before any
// user code runs, every way out of the worker is closed for good (see `lockDown`): the network APIs, the messaging
// that reaches the page, nested workers, storage shared with the page, and JavaScript evaluation (which would give
// `import()`). References captured during set-up point at gated wrappers, which refuse once the gate is shut.

import { Capped, door, pin, refused } from "./worker-common.mjs";

// `make web` copies Pyodide into a folder named after its version (served as immutable) and checks this name.
const PYODIDE_VERSION = "314.0.7";
const INDEX_URL = new URL(`./pyodide/${PYODIDE_VERSION}/`, import.meta.url).href;
const PYODIDE_URL = new URL("pyodide.mjs", INDEX_URL).href;
const HARNESS_URL = new URL("./python_run.py", import.meta.url).href;
const MICROPIP_URL = new URL("./pyodide/micropip-0.11.1-py3-none-any.whl", import.meta.url).href;
// Pyodide's own builds of compiled packages (numpy and others) are only on its CDN; they are fetched from there
// only when the user asks for such a package and is online.
const PYODIDE_CDN = `https://cdn.jsdelivr.net/pyodide/v${PYODIDE_VERSION}/full/`;
const OUTPUT_EVERY_MS = 250;

// Kept in this module's scope, which Python cannot reach.
const post = self.postMessage.bind(self);
const realFetch = self.fetch.bind(self);
const RealXHR = self.XMLHttpRequest;
let networkOpen = true;

// Gated stand-ins, installed before Pyodide loads so that whatever it captures is gated too.
self.fetch = function fetch(...args) {
  return networkOpen ? realFetch(...args) : Promise.reject(refused("fetch"));
};
self.XMLHttpRequest = class XMLHttpRequest extends RealXHR {
  open(...args) {
    if (!networkOpen) throw refused("XMLHttpRequest");
    return super.open(...args);
  }
  send(...args) {
    if (!networkOpen) throw refused("XMLHttpRequest");
    return super.send(...args);
  }
};

// Python's heap is the wasm memory: growing it past the limit fails, and Python raises MemoryError, as it does under
// the runner server's address-space limit. (Emscripten grows memory through this method and treats a throw as
// "no more memory".)
let memoryLimit = 1 << 30;
const realGrow = WebAssembly.Memory.prototype.grow;
Object.defineProperty(WebAssembly.Memory.prototype, "grow", {
  value: function grow(pages) {
    if (this.buffer.byteLength + pages * 65536 > memoryLimit) throw new RangeError("over the memory limit");
    return realGrow.call(this, pages);
  },
  writable: false,
  configurable: false,
});

let py = null; // the Pyodide instance
let harness = null; // the Python side (python_run.py): its functions, taken once so that no run can swap them
let stdout = null; // Capped
let stderr = null; // Capped
let current = null; // id of the run in progress
let lastOutput = 0;
let outputLimit = 64 << 10;

/** A stream writer for Pyodide: raw bytes into a Capped buffer, and a progress message now and then. */
function writer(which) {
  return {
    isatty: false,
    write(buffer) {
      const target = which === "stdout" ? stdout : stderr;
      if (target) target.push(buffer);
      const now = performance.now();
      if (current !== null && now - lastOutput > OUTPUT_EVERY_MS) {
        lastOutput = now;
        const [out, err] = [stdout.text(), stderr.text()];
        const truncated = out.truncated || err.truncated;
        post({ kind: "output", id: current, stdout: out.text, stderr: err.text, truncated });
      }
      return buffer.length;
    },
  };
}

async function setup(message) {
  outputLimit = message.output_bytes || outputLimit;
  memoryLimit = message.memory_bytes || memoryLimit;
  const { loadPyodide } = await import(PYODIDE_URL);
  py = await loadPyodide({ indexURL: INDEX_URL, packageBaseUrl: PYODIDE_CDN, env: { HOME: "/home/pyodide" } });
  py.setStdout(writer("stdout"));
  py.setStderr(writer("stderr"));
  py.setStdin({ stdin: () => null, isatty: false }); // end of file, as with the runner's /dev/null
  const source = await (await realFetch(HARNESS_URL)).text();
  const namespace = py.globals.get("dict")();
  py.runPython(source, { globals: namespace, filename: "<acr-tab>" });
  const take = (name) => namespace.get(name);
  harness = {
    install: take("install"),
    baseline: take("baseline"),
    reset: take("reset"),
    run: take("run"),
    missing: take("missing_modules"),
  };
  const report = await installPackages(message.packages ?? {});
  harness.baseline();
  lockDown();
  return {
    kind: "ready",
    id: message.id,
    python: py.runPython("import sys; sys.version.split()[0]"),
    pyodide: py.version,
    ...report,
  };
}

/** Dropped wheels are unpacked into site-packages; requirements go to micropip (online, or from a given index). */
async function installPackages({ wheels = [], requirements = [], index_url: indexUrl = "" }) {
  stdout = new Capped(outputLimit);
  stderr = new Capped(outputLimit);
  py.FS.mkdirTree("/tmp/acr-wheels");
  for (const wheel of wheels) py.FS.writeFile(`/tmp/acr-wheels/${wheel.name.replace(/[/\\]/g, "_")}`, wheel.bytes);
  let micropipPath = "";
  if (requirements.length > 0) {
    try {
      const bytes = new Uint8Array(await (await realFetch(MICROPIP_URL)).arrayBuffer());
      py.FS.writeFile("/tmp/acr-micropip.whl", bytes);
      micropipPath = "/tmp/acr-micropip.whl";
    } catch {
      micropipPath = ""; // the harness reports every requirement as not installed, with why
    }
  }
  const names = wheels.map((w) => w.name.replace(/[/\\]/g, "_"));
  const result = await harness.install(py.toPy(names), py.toPy(requirements), indexUrl, micropipPath);
  const report = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  return report;
}

/** Closes every door out of the worker; nothing reopens them. */
function lockDown() {
  networkOpen = false;
  // Callables become functions that throw (so Python reads why); the rest become undefined.
  const callables = [
    "fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "EventSource", "WebTransport", "importScripts",
    "Worker", "SharedWorker", "BroadcastChannel", "FontFace", "postMessage", "close", "eval", "Request",
  ];
  for (const name of callables) pin(self, name, door(name));
  for (const name of ["indexedDB", "caches", "fonts", "navigator", "cookieStore"]) pin(self, name, undefined);
  // Building a function from a string evaluates code, and code can call `import()`. Pyodide still needs the global
  // `Function` for `instanceof` and `Function.prototype`, so it becomes a stand-in with the same prototype that
  // refuses to build anything, and the four constructors reachable through `.constructor` are removed.
  const stand = door("building a function from a string");
  stand.prototype = Function.prototype;
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    const gone = { value: undefined, writable: false, configurable: false };
    Object.defineProperty(Object.getPrototypeOf(f), "constructor", gone);
  }
  pin(self, "Function", stand);
  // Timers that take a string evaluate it.
  for (const name of ["setTimeout", "setInterval"]) {
    const real = self[name].bind(self);
    pin(self, name, (handler, ...rest) => {
      if (typeof handler !== "function") throw refused(`${name} with a string`);
      return real(handler, ...rest);
    });
  }
  // Pyodide's own ways out: package and script loading, and its test hooks (which keep the real `Function`).
  py.loadPackage = door("pyodide.loadPackage");
  py.loadPackagesFromImports = door("pyodide.loadPackagesFromImports");
  py._api.loadScript = door("loading a script");
  delete py._api.tests;
}

async function run(message) {
  stdout = new Capped(outputLimit);
  stderr = new Capped(outputLimit);
  current = message.id;
  lastOutput = performance.now();
  let exitCode;
  try {
    harness.reset();
    writeTree(message.files);
    // callPromising lets the run block on asyncio (run_until_complete) through JavaScript promise integration.
    const argv = py.toPy(message.argv);
    exitCode = await (harness.run.callPromising ? harness.run.callPromising(argv) : harness.run(argv));
  } finally {
    current = null;
  }
  const out = stdout.text();
  const err = stderr.text();
  const missing = harness.missing(`${out.text}\n${err.text}`);
  const missingModules = missing.toJs().map(([name, kind]) => ({ name, kind }));
  missing.destroy();
  return {
    kind: "done",
    id: message.id,
    exit_code: exitCode ?? null,
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
    missing_modules: missingModules,
    heap_bytes: py._module.HEAP8.length,
  };
}

/** Writes the snapshot under /repo (the paths were checked by the page; checked again here). */
function writeTree(files) {
  for (const [path, text] of Object.entries(files)) {
    const parts = path.split("/");
    if (path.startsWith("/") || parts.some((p) => p === ".." || p === "." || p === "")) {
      throw new Error(`unsafe path in the snapshot: ${JSON.stringify(path)}`);
    }
    if (parts.length > 1) py.FS.mkdirTree(`/repo/${parts.slice(0, -1).join("/")}`);
    py.FS.writeFile(`/repo/${path}`, text);
  }
}

/** What ended a request that failed: `memory`, `stack` (a deep recursion overflowed the stack) or `error`. */
function causeOf(e) {
  const text = String(e?.message ?? e);
  if (/call stack/i.test(text)) return "stack";
  if (/out of memory|Cannot enlarge memory|OOM|Array buffer allocation failed/i.test(text)) return "memory";
  return "error";
}

let queue = Promise.resolve();
self.addEventListener("message", (event) => {
  // Only the page's messages count: code in the worker could dispatch look-alike events.
  if (!event.isTrusted) return;
  const message = structuredClone(event.data);
  queue = queue.then(async () => {
    try {
      if (message.kind === "setup") post(await setup(message));
      else if (message.kind === "run") post(await run(message));
      else post({ kind: "failed", id: message.id, message: `unknown request ${message.kind}`, cause: "error" });
    } catch (e) {
      post({ kind: "failed", id: message.id, message: String(e?.message ?? e), cause: causeOf(e) });
    }
  });
});
