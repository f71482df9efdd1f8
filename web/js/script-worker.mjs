// The playground's Node, in a dedicated module worker started for one run: `node reproducer.mjs` on a repository
// snapshot, with the page's own JavaScript engine, the exit code Node would give and what the script printed.
//
// Messages (the Rust side's types are in web/src/tab_runner/node.rs and protocol.rs):
//   page → worker  {kind: "run", id, modules: [{path, format, code, imports}], argv: [...], output_bytes, test,
//                   reporter}
//                  (the plan of web/src/tab_runner/module_plan.rs: every module the entry loads, the entry first,
//                  with where each module it names stands in its code and what that name resolves to; `test`: run
//                  the entry as `node --test` runs a test file, its events read by the plan's module at index
//                  `reporter` when there is one)
//   worker → page  {kind: "output", id, stdout, stderr, truncated}   (what the run printed so far, every 250 ms)
//                  {kind: "done", id, exit_code, stdout, stderr, truncated}
//                  {kind: "failed", id, message, cause}
//
// Loading: each ES module gets a blob URL of its own, its imports rewritten to the URLs of what they name (so no
// file is fetched); a CommonJS module is a function of `exports, require, module, __filename, __dirname`, evaluated
// when first required (or when an ES module imports it: its `module.exports` is then the default export and its
// keys the named ones); built-ins come from node-builtins.mjs. Exit: the entry's error, an error no one caught or
// a rejection no one handled ends the run with 1 and the error on stderr, as Node does; `process.exit(n)` ends it at
// once with n; otherwise the run ends when its timers have fired, with `process.exitCode` (0 by default). Tests
// declared with `node:test` run once the file has loaded, as Node runs them (see node-builtins.mjs), and any that
// fails makes the exit code 1.
//
// Containment: the page's server sends this script with a Content-Security-Policy that lets it load only its own
// origin's scripts and blob URLs and connect nowhere (tools/serve.py); a run refuses to start without it, since
// `import()` cannot be taken away from code. Before the code runs, the doors a script could open are closed too:
// the network APIs, the messaging that reaches the page, nested workers and storage shared with the page.

import { Capped, door, pin, refused } from "./worker-common.mjs";
import { EventEmitter, assert, format, inspect, makePath, makeTestRunner, strictAssert, util } from "./node-builtins.mjs";

const OUTPUT_EVERY_MS = 250;
const HOOK = `__acr_module_${Math.random().toString(36).slice(2)}`;
const post = self.postMessage.bind(self);
const realSetTimeout = self.setTimeout.bind(self);
const realClearTimeout = self.clearTimeout.bind(self);
const realSetInterval = self.setInterval.bind(self);
const realClearInterval = self.clearInterval.bind(self);
const encoder = new TextEncoder();

/** Thrown through the script's frames by `process.exit`; never reported as an error. */
class Exit {
  constructor(code) {
    this.code = code;
  }
}

let run = null; // the run in progress: {id, stdout, stderr, finished, urls, paths, ...}

// ---- output ---------------------------------------------------------------------------------------------------

function write(stream, text) {
  if (!run || run.finished) return;
  run[stream].push(encoder.encode(text));
  const now = performance.now();
  if (now - run.lastOutput >= OUTPUT_EVERY_MS) {
    run.lastOutput = now;
    const out = run.stdout.text();
    const err = run.stderr.text();
    post({ kind: "output", id: run.id, stdout: out.text, stderr: err.text, truncated: out.truncated || err.truncated });
  }
}

/** Ends the run with `code` (once: later calls, and whatever the script does after, change nothing). */
function finish(code) {
  if (!run || run.finished) return;
  run.finished = true;
  const out = run.stdout.text();
  const err = run.stderr.text();
  post({ kind: "done", id: run.id, exit_code: code, stdout: out.text, stderr: err.text, truncated: out.truncated || err.truncated });
}

/** An error no one caught, as Node prints it: its stack with the modules' paths, then its own fields. */
function report(error) {
  let text;
  if (error instanceof Error) {
    text = paths(error.stack || `${error.name}: ${error.message}`);
    if (error.code && !text.includes(`[${error.code}]`)) text = text.replace(error.name, `${error.name} [${error.code}]`);
    const fields = Object.keys(error).filter((k) => !["stack", "message", "name"].includes(k));
    if (fields.length) text += ` {\n${fields.map((k) => `  ${k}: ${inspect(error[k], 1)}`).join(",\n")}\n}`;
  } else {
    // A thrown value that is not an error: Node prints it (a string as it is) and says there is no stack.
    text = `${typeof error === "string" ? error : inspect(error)}\n(Use \`node --trace-uncaught ...\` to show where the exception was thrown)`;
  }
  write("stderr", `${text}\n\nNode.js in this tab\n`);
}

/** A stack trace with each module's blob URL replaced by its path, and without the frames of the tab's own code. */
function paths(text) {
  for (const [url, path] of run.paths) text = text.replaceAll(url, path);
  const own = new URL(".", import.meta.url).href;
  return text.split("\n").filter((line) => !(/^\s+at /.test(line) && line.includes(own))).join("\n");
}

// ---- the process, the console and the timers --------------------------------------------------------------------

function makeProcess(argv) {
  const process = new EventEmitter();
  Object.assign(process, {
    argv: ["/usr/local/bin/node", ...argv.slice(1).map((a, i) => (i === 0 ? `/repo/${a.replace(/^\.\//, "")}` : a))],
    env: {},
    exitCode: undefined,
    platform: "linux",
    version: "v22.0.0",
    versions: { node: "22.0.0" },
    pid: 1,
    cwd: () => "/repo",
    exit(code) {
      const n = code ?? process.exitCode ?? 0;
      finish(Number(n) | 0);
      throw new Exit(n);
    },
    nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
    hrtime: Object.assign((prev) => {
      const ns = BigInt(Math.round(performance.now() * 1e6));
      const [s, n] = [Number(ns / 1000000000n), Number(ns % 1000000000n)];
      return prev ? [s - prev[0], n - prev[1]] : [s, n];
    }, { bigint: () => BigInt(Math.round(performance.now() * 1e6)) }),
    memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }),
    uptime: () => performance.now() / 1000,
    stdout: { write: (s) => (write("stdout", String(s)), true), isTTY: false },
    stderr: { write: (s) => (write("stderr", String(s)), true), isTTY: false },
  });
  return process;
}

function installConsole() {
  const out = (...args) => write("stdout", `${format(...args)}\n`);
  const err = (...args) => write("stderr", `${format(...args)}\n`);
  const console = {
    log: out, info: out, debug: out, dir: (v) => out(inspect(v)), table: out,
    warn: err, error: err, trace: (...args) => err(`Trace: ${format(...args)}\n${paths(new Error().stack.split("\n").slice(2).join("\n"))}`),
    assert: (value, ...args) => value || err(`Assertion failed${args.length ? `: ${format(...args)}` : ""}`),
    group: out, groupEnd() {}, time() {}, timeEnd() {}, count() {},
  };
  pin(self, "console", console);
}

/** Timers that keep the run alive while they are pending, as Node's do. */
function installTimers() {
  const pending = new Set();
  const settle = () => {
    if (pending.size === 0 && run.waiting) run.waiting();
  };
  pin(self, "setTimeout", (fn, ms, ...args) => {
    if (typeof fn !== "function") throw refused("setTimeout with a string");
    const handle = realSetTimeout(() => {
      pending.delete(handle);
      try {
        fn(...args);
      } finally {
        settle();
      }
    }, ms);
    pending.add(handle);
    return handle;
  });
  pin(self, "clearTimeout", (handle) => {
    realClearTimeout(handle);
    pending.delete(handle);
    settle();
  });
  pin(self, "setInterval", (fn, ms, ...args) => {
    if (typeof fn !== "function") throw refused("setInterval with a string");
    const handle = realSetInterval(() => fn(...args), ms);
    pending.add(handle);
    return handle;
  });
  pin(self, "clearInterval", (handle) => {
    realClearInterval(handle);
    pending.delete(handle);
    settle();
  });
  pin(self, "setImmediate", (fn, ...args) => self.setTimeout(fn, 0, ...args));
  pin(self, "clearImmediate", (handle) => self.clearTimeout(handle));
  return () => pending.size;
}

/** Closes every door out of the worker; nothing reopens them. */
function lockDown() {
  const callables = [
    "fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "EventSource", "WebTransport", "importScripts",
    "Worker", "SharedWorker", "BroadcastChannel", "FontFace", "postMessage", "close", "Request",
  ];
  for (const name of callables) pin(self, name, door(name));
  for (const name of ["indexedDB", "caches", "fonts", "navigator", "cookieStore"]) pin(self, name, undefined);
}

/** Whether the worker runs under a policy that keeps `import()` to this origin (a data: URL is refused). */
async function contained() {
  try {
    await import("data:text/javascript,export default 1");
    return false;
  } catch {
    return true;
  }
}

// ---- modules --------------------------------------------------------------------------------------------------

function builtin(name) {
  const process = run.process;
  switch (name) {
    case "assert":
      return assert;
    case "assert/strict":
      return strictAssert;
    case "util":
      return util;
    case "events":
      return EventEmitter;
    case "process":
      return process;
    case "timers":
      return { setTimeout: self.setTimeout, clearTimeout: self.clearTimeout, setInterval: self.setInterval, clearInterval: self.clearInterval, setImmediate: self.setImmediate, clearImmediate: self.clearImmediate };
    case "path":
    case "path/posix":
      return run.path;
    case "test":
      return run.tests.api.test;
    default: {
      const e = new Error(`Cannot load Node's built-in module 'node:${name}'\n[in this tab: only assert, util, events, path, process, test and timers are built in; the local runner or the runner server runs every built-in module]`);
      e.code = "ERR_UNKNOWN_BUILTIN_MODULE";
      throw e;
    }
  }
}

/** An error of the tab's module loading, in Node's words, with no stack (its frames would be the worker's). */
function missing(message, code) {
  const e = new Error(message);
  e.code = code;
  e.stack = `Error [${code}]: ${message}`;
  return e;
}

/** What `target` gives `require`. */
function requireTarget(target, from) {
  if ("module" in target) return requireModule(target.module, from);
  if ("builtin" in target) return builtin(target.builtin);
  throw missing(target.missing, "MODULE_NOT_FOUND");
}

/** Evaluates the CommonJS or JSON module at `index` once and returns its `module.exports`. */
function requireModule(index, from) {
  const cached = run.commonjs.get(index);
  if (cached) return cached.exports;
  const m = run.modules[index];
  if (m.format === "module") {
    throw missing(`require() of ES Module ${m.path} from ${from} is not supported in this tab (the local runner's Node loads it)`, "ERR_REQUIRE_ESM");
  }
  const module = { exports: {}, id: m.path, filename: `/repo/${m.path}`, loaded: false, children: [] };
  run.commonjs.set(index, module);
  if (m.format === "json") {
    try {
      module.exports = JSON.parse(m.code);
    } catch (e) {
      run.commonjs.delete(index);
      throw new SyntaxError(`/repo/${m.path}: ${e.message}`);
    }
    return module.exports;
  }
  const table = new Map(m.imports.filter((i) => i.kind === "require").map((i) => [i.text, i.target]));
  const require = (specifier) => {
    const target = table.get(specifier);
    if (!target) throw missing(`Cannot find module '${specifier}'\nRequire stack:\n- /repo/${m.path}\n[in this tab: only names written as one plain string are found]`, "MODULE_NOT_FOUND");
    return requireTarget(target, m.path);
  };
  const dir = m.path.includes("/") ? `/repo/${m.path.slice(0, m.path.lastIndexOf("/"))}` : "/repo";
  try {
    const body = new Function("exports", "require", "module", "__filename", "__dirname", `${m.code}\n//# sourceURL=/repo/${m.path}`);
    body.call(module.exports, module.exports, require, module, module.filename, dir);
  } catch (e) {
    run.commonjs.delete(index);
    throw e;
  }
  module.loaded = true;
  return module.exports;
}

/**
 * The URL an ES module can import `target` from. What cannot be loaded fails the run before any module runs when
 * it is imported statically (Node links every static import first), and fails the `import()` call otherwise.
 */
function targetUrl(target, from, statically) {
  if ("module" in target) return moduleUrl(target.module, from);
  let error;
  if ("builtin" in target) {
    const key = `builtin:${target.builtin}`;
    if (run.urls.has(key)) return run.urls.get(key);
    try {
      const names = Object.keys(builtin(target.builtin)).filter(isName);
      const code = `const m = globalThis[${JSON.stringify(HOOK)}].builtin(${JSON.stringify(target.builtin)});\nexport default m;\n${exportsOf(names)}`;
      run.urls.set(key, blob(code, `node:${target.builtin}`));
      return run.urls.get(key);
    } catch (e) {
      error = e;
    }
  } else {
    error = missing(target.missing, "ERR_MODULE_NOT_FOUND");
  }
  if (statically) throw error;
  return blob(`const e = new Error(${JSON.stringify(error.message)});\ne.code = ${JSON.stringify(error.code)};\nthrow e;\n`, from);
}

/** The blob URL of the module at `index`, made (with those of what it imports) the first time it is asked for. */
function moduleUrl(index, from) {
  const known = run.urls.get(index);
  if (known) return known;
  const m = run.modules[index];
  let code;
  if (m.format === "module") {
    let at = 0;
    code = "";
    for (const i of m.imports) {
      if (i.kind === "require") continue;
      code += m.code.slice(at, i.start) + targetUrl(i.target, m.path, i.kind === "static");
      at = i.end;
    }
    code += m.code.slice(at);
  } else {
    // A CommonJS module imported by an ES module: evaluated now, its exports as the default and by name.
    const exports = requireModule(index, from);
    const names = exports && typeof exports === "object" ? Object.keys(exports).filter(isName) : [];
    code = `const m = globalThis[${JSON.stringify(HOOK)}].require(${index}, ${JSON.stringify(from)});\nexport default m;\n${exportsOf(names)}`;
  }
  const url = blob(code, m.path);
  run.urls.set(index, url);
  return url;
}

function isName(name) {
  return /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default";
}

function exportsOf(names) {
  return names.length ? `export const { ${names.join(", ")} } = m;\n` : "";
}

function blob(code, path) {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  run.paths.set(url, path.startsWith("node:") ? path : `/repo/${path}`);
  return url;
}

// ---- a run ----------------------------------------------------------------------------------------------------

async function start(message) {
  run = {
    id: message.id,
    stdout: new Capped(message.output_bytes),
    stderr: new Capped(message.output_bytes),
    lastOutput: performance.now(),
    finished: false,
    modules: message.modules,
    urls: new Map(),
    paths: new Map(),
    commonjs: new Map(),
    waiting: null,
  };
  if (!(await contained())) {
    write("stderr", "[in this tab: JavaScript runs only in a worker its server keeps to the page's own scripts (a Content-Security-Policy of `script-src 'self' blob: 'unsafe-eval'; default-src 'none'`, as tools/serve.py sends for script-worker.mjs); this server sent none, so nothing was run]\n");
    finish(null);
    return;
  }
  run.process = makeProcess(message.argv);
  run.path = makePath(run.process.cwd);
  run.tests = makeTestRunner();
  globalThis[HOOK] = { builtin, require: (index, from) => requireModule(index, from) };
  installConsole();
  const timersPending = installTimers();
  pin(self, "process", run.process);
  pin(self, "global", self);
  lockDown();
  self.addEventListener("error", (event) => {
    event.preventDefault();
    if (event.error instanceof Exit) return;
    report(event.error ?? event.message);
    finish(1);
  });
  self.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    if (event.reason instanceof Exit) return;
    report(event.reason);
    finish(1);
  });
  const entry = run.modules[0];
  let failedToLoad = null;
  try {
    if (entry.format === "module") await import(moduleUrl(0, entry.path));
    else requireModule(0, entry.path);
  } catch (e) {
    if (e instanceof Exit) return;
    if (!message.test) {
      report(e);
      finish(1);
      return;
    }
    failedToLoad = e; // a failed test named after the file, as `node --test` reports it
  }
  if (message.test || run.tests.outcome.declared()) {
    const failed = await runTests(`/repo/${entry.path}`, message.reporter, failedToLoad);
    if (failed) run.process.exitCode = 1;
  }
  if (timersPending() > 0) await new Promise((resolve) => (run.waiting = resolve));
  // Two turns: one for the last callbacks' promises, one for the engine to report a rejection no one handled.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => realSetTimeout(resolve, 0));
  if (run.finished) return;
  run.process.emit("exit", run.process.exitCode ?? 0);
  finish(Number(run.process.exitCode ?? 0) | 0);
}

/**
 * Runs the tests the file declared and writes what the reporter makes of their events (the plan's module at
 * `reporter`, or a short line per test); a file that failed to load is one failed test named after it, as in Node.
 * Resolves to whether any test failed.
 */
async function runTests(file, reporter, failedToLoad) {
  const events = failedToLoad
    ? (async function* () {
        yield { type: "test:start", data: { name: file, nesting: 0, file } };
        yield { type: "test:fail", data: { name: file, nesting: 0, file, details: { error: { message: "test failed", failureType: "testCodeFailure", loadError: failedToLoad } } } };
      })()
    : run.tests.run(file);
  const read = reporter === null || reporter === undefined ? lines : (await import(moduleUrl(reporter, file))).default;
  for await (const chunk of read(events)) write("stdout", String(chunk));
  return failedToLoad !== null || run.tests.outcome.failed > 0;
}

/** Node's test events as one line per test, when no reporter is named. */
async function* lines(events) {
  for await (const { type, data } of events) {
    if (type === "test:pass" && data.details?.type !== "suite") yield `${"  ".repeat(data.nesting)}✔ ${data.name}${data.skip ? " # SKIP" : data.todo ? " # TODO" : ""}\n`;
    if (type === "test:fail" && data.details?.type !== "suite") yield `${"  ".repeat(data.nesting)}✖ ${data.name}\n${"  ".repeat(data.nesting + 1)}${String(data.details?.error?.cause?.message ?? "failed").split("\n")[0]}\n`;
  }
}

self.addEventListener("message", (event) => {
  // Only the page's messages count, and only the first: a worker runs one script.
  if (!event.isTrusted || run) return;
  const message = structuredClone(event.data);
  start(message).catch((e) => {
    if (run?.finished) return;
    post({ kind: "failed", id: message.id, message: String(e?.message ?? e), cause: /call stack/i.test(String(e)) ? "stack" : "error" });
  });
});
