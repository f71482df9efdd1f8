// acr-wasm's entry point. It wraps the wasm-bindgen glue (made into a factory by tools/glue-factory.mjs, so that
// more than one WebAssembly instance can exist) with three guarantees:
//
// 1. Arguments are read in JavaScript first. Object arguments are copied into plain data here, so a throwing
//    getter or a Proxy trap throws before any WebAssembly runs and cannot leave Rust state half-borrowed.
// 2. A trap is an error with a code. If the WebAssembly core traps (it ran out of memory, or a bug), the call
//    throws an `AcrError` with `code: "TRAPPED"`; objects made by that instance throw the same from then on, and the
//    next `new Repo()`, `Repo.fromFiles()`... gets a fresh instance, so the program can go on.
// 3. The module is compiled once; instances are cheap to make from it.
//
// `init()` loads the WebAssembly: in Node it reads the file next to this module from disk (Node's `fetch` cannot read
// `file:` URLs); in browsers and bundlers it fetches it (bundlers see `new URL("./acr_wasm_bg.wasm",
// import.meta.url)` and ship the file as an asset).
import { createInstance } from "./acr_wasm_instances.js";

const wasmUrl = new URL("./acr_wasm_bg.wasm", import.meta.url);

/** The compiled module, once `init()` has run. */
let compiled;
/** The instance new objects are made in: `{ core, dead, objects }`. */
let current;
/** Each `Repo` the package handed out: its instance and the glue object it wraps. */
const handles = new WeakMap();
const INTERNAL = Symbol("acr-wasm internal");
/** Nesting deeper than this in an argument is refused (and stops cycles). */
const MAX_DEPTH = 64;

/** Whether this is Node (or a runtime with Node's built-ins) loading the package from disk. */
function fromDisk() {
  return typeof process === "object" && process !== null && typeof process.versions?.node === "string"
    && wasmUrl.protocol === "file:";
}

/** An `Error` named `AcrError` with a `code`, like the ones the core throws. */
function acrError(code, message, cause) {
  const err = new Error(message, cause === undefined ? undefined : { cause });
  err.name = "AcrError";
  err.code = code;
  return err;
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source === undefined && fromDisk()) {
    const fsModule = "node:fs/promises"; // kept out of bundlers' sight: browsers never take this branch
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsModule);
    return WebAssembly.compile(await readFile(wasmUrl));
  }
  let response = source ?? wasmUrl;
  if (typeof response === "string" || response instanceof URL) response = fetch(response);
  response = await response;
  if (typeof Response === "function" && response instanceof Response) {
    if (!response.ok) throw new Error(`failed to fetch the WebAssembly: ${response.status} ${response.statusText}`);
    if (typeof WebAssembly.compileStreaming === "function"
      && response.headers.get("Content-Type") === "application/wasm") {
      return WebAssembly.compileStreaming(response);
    }
    return WebAssembly.compile(await response.arrayBuffer());
  }
  return WebAssembly.compile(response);
}

function instantiate() {
  const core = createInstance();
  core.initSync({ module: compiled });
  return { core, dead: null, objects: new Set() };
}

/**
 * Loads and instantiates the WebAssembly module; call once (later calls return at once) before anything else.
 * `source` is optional: bytes, a `WebAssembly.Module`, a `Response`, or a URL to fetch.
 */
export async function init(source) {
  if (current) return;
  const module = await compile(source);
  if (current) return;
  compiled = module;
  current = instantiate();
}

/** Instantiates the module synchronously from its bytes or a compiled `WebAssembly.Module`. */
export function initSync(source) {
  if (current) return;
  compiled = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
  current = instantiate();
}

/** The instance to make new objects in: a fresh one when the last one trapped. */
function live() {
  if (!compiled) throw acrError("NOT_INITIALIZED", "acr-wasm is not initialised: call `await init()` first");
  if (current.dead) current = instantiate();
  return current;
}

/** Whether an exception means the WebAssembly instance stopped mid-call and its state cannot be trusted. */
function isTrap(e) {
  return e instanceof WebAssembly.RuntimeError || (e instanceof RangeError && /call stack/i.test(e.message));
}

function trappedError(cause) {
  return acrError(
    "TRAPPED",
    `the WebAssembly core stopped (${cause}), most likely out of memory; objects made before cannot be used any `
      + "more. Create a new Repo: it gets a fresh core.",
    cause,
  );
}

/** Runs `fn` in `gen`; a trap retires the instance and becomes a `TRAPPED` error. */
function guard(gen, fn) {
  try {
    return fn();
  } catch (e) {
    if (!isTrap(e)) throw e;
    if (!gen.dead) {
      gen.dead = e;
      // Detach every object of the dead instance from its finaliser, so none calls into it again.
      for (const ref of gen.objects) ref.deref()?.__destroy_into_raw();
      gen.objects.clear();
      gen.core.__retire();
    }
    throw trappedError(e);
  }
}

/** A copy of an argument as plain data: getters run and Proxy traps fire here, in JavaScript. */
function plain(value, what) {
  const copy = (v, depth) => {
    if (v === null || typeof v !== "object") return v; // primitives, and functions for the core to name
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return v;
    if (depth > MAX_DEPTH) throw new Error(`nested more than ${MAX_DEPTH} levels deep (or a cycle)`);
    if (Array.isArray(v)) return Array.from(v, (x) => copy(x, depth + 1));
    const out = {};
    for (const key of Object.keys(v)) out[key] = copy(v[key], depth + 1);
    return out;
  };
  try {
    return copy(value, 0);
  } catch (e) {
    throw acrError("BAD_INPUT", `${what} could not be read: ${e?.message ?? e}`, e);
  }
}

function adopt(repo, gen, inner) {
  const ref = new WeakRef(inner);
  if (gen.objects.size > 1024) {
    for (const r of gen.objects) if (r.deref() === undefined) gen.objects.delete(r);
  }
  gen.objects.add(ref);
  handles.set(repo, { gen, inner, ref });
}

function handleOf(repo, what) {
  const h = handles.get(repo);
  if (!h) {
    const freed = repo instanceof Repo;
    throw acrError("BAD_INPUT", freed ? `${what}: this Repo was freed` : `${what} must be a Repo`);
  }
  if (h.gen.dead) throw trappedError(h.gen.dead);
  return h;
}

/** A Python repository held in memory, with its structural index (see acr_wasm.d.ts for every method). */
export class Repo {
  constructor(...args) {
    if (args[0] === INTERNAL) {
      adopt(this, args[1], args[2]);
      return;
    }
    const gen = live();
    const safe = args.map((a, i) => plain(a, `new Repo: argument ${i + 1}`));
    adopt(this, gen, guard(gen, () => new gen.core.Repo(...safe)));
  }

  static fromFiles(files, options) {
    return made("fromFiles", [plain(files, "Repo.fromFiles: files"), plain(options, "Repo.fromFiles: options")]);
  }

  static fromZip(bytes, options) {
    return made("fromZip", [plain(bytes, "Repo.fromZip: bytes"), plain(options, "Repo.fromZip: options")]);
  }

  /** Releases the repository's memory now (otherwise the garbage collector does, eventually). */
  free() {
    const h = handles.get(this);
    if (!h) return;
    handles.delete(this);
    h.gen.objects.delete(h.ref);
    if (!h.gen.dead) h.inner.free();
  }
}
if (typeof Symbol.dispose === "symbol") Repo.prototype[Symbol.dispose] = Repo.prototype.free;

function made(method, args) {
  const gen = live();
  return new Repo(INTERNAL, gen, guard(gen, () => gen.core.Repo[method](...args)));
}

// Every other method forwards to the glue's, reading its arguments first. The names come from the glue itself.
const shape = createInstance().Repo.prototype;
for (const name of Object.getOwnPropertyNames(shape)) {
  if (["constructor", "free", "__destroy_into_raw"].includes(name) || typeof shape[name] !== "function") continue;
  Object.defineProperty(Repo.prototype, name, {
    configurable: true,
    writable: true,
    value: function (...args) {
      const h = handleOf(this, `repo.${name}`);
      const safe = args.map((a, i) => plain(a, `repo.${name}: argument ${i + 1}`));
      return guard(h.gen, () => h.inner[name](...safe));
    },
  });
}

/**
 * Applies the edits of a model's answer to the repository's files in memory (the repository is not changed) and
 * returns the verdict, the unified diff, each edit's fate and the new text of every changed file.
 */
export function applyEdits(repo, answer, options) {
  const h = handleOf(repo, "applyEdits: repo");
  const safe = [plain(answer, "applyEdits: answer"), plain(options, "applyEdits: options")];
  return guard(h.gen, () => h.gen.core.applyEdits(h.inner, ...safe));
}

/**
 * Checks that a source parses as its language's compiler would parse it (the language from `options.path`'s
 * extension, Python without one) and returns the first problem's 1-based line and column.
 */
export function checkSyntax(source, options) {
  const gen = live();
  const safe = [plain(source, "checkSyntax: source"), plain(options, "checkSyntax: options")];
  return guard(gen, () => gen.core.checkSyntax(...safe));
}

/** Reads one search call written in Python syntax, checked as the agent checks a model's call: `{api, args, call}`. */
export function parseCall(text) {
  const gen = live();
  const safe = plain(text, "parseCall: text");
  return guard(gen, () => gen.core.parseCall(safe));
}

/** The nine search APIs: name, `Repo` method, parameters and summary. */
export function apis() {
  const gen = live();
  return guard(gen, () => gen.core.apis());
}

/** For the package's own tests: makes the current instance trap, as running out of memory would. */
export const __testing = Object.freeze({
  trap() {
    const gen = live();
    return guard(gen, () => gen.core.__trapForTests());
  },
});
