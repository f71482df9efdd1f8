// Node's built-in modules as far as the tab's JavaScript runs them (script-worker.mjs): `assert` (and
// `assert/strict`), `util` (format, inspect, isDeepStrictEqual, promisify, inherits, deprecate), `events`
// (EventEmitter) and `process` (made by the worker, which owns the streams and the exit). What a reproducer
// checks with and prints through, written to give Node's results and close to Node's words; not Node's sources.

// ---- util.inspect and util.format ----------------------------------------------------------------------------

const MAX_DEPTH = 2;
const MAX_ITEMS = 100;

/** A value as Node's `util.inspect` shows it (strings quoted, objects `{ a: 1 }`, nesting past 2 as `[Object]`). */
export function inspect(value, depth = 0, seen = new Set()) {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return value.toString();
    case "undefined":
      return "undefined";
    case "boolean":
      return String(value);
    case "function": {
      const isClass = /^class[\s{]/.test(Function.prototype.toString.call(value));
      const name = value.name ? `: ${value.name}` : " (anonymous)";
      return isClass ? `[class ${value.name || "(anonymous)"}]` : `[Function${name}]`;
    }
  }
  if (value === null) return "null";
  if (seen.has(value)) return "[Circular *1]";
  if (value instanceof Error) return value.stack || `${value.name}: ${value.message}`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (value instanceof Promise) return "Promise { <pending> }";
  const name = constructorName(value);
  if (depth > MAX_DEPTH) return Array.isArray(value) ? "[Array]" : `[${name || "Object"}]`;
  seen.add(value);
  try {
    const show = (v) => inspect(v, depth + 1, seen);
    let items;
    let open;
    let close;
    if (Array.isArray(value) || ArrayBuffer.isView(value)) {
      items = Array.from(value).slice(0, MAX_ITEMS).map(show);
      if (value.length > MAX_ITEMS) items.push(`... ${value.length - MAX_ITEMS} more items`);
      open = Array.isArray(value) ? (name === "Array" ? "[" : `${name}(${value.length}) [`) : `${name}(${value.length}) [`;
      close = "]";
    } else if (value instanceof Map) {
      items = [...value].slice(0, MAX_ITEMS).map(([k, v]) => `${show(k)} => ${show(v)}`);
      open = `${name}(${value.size}) {`;
      close = "}";
    } else if (value instanceof Set) {
      items = [...value].slice(0, MAX_ITEMS).map(show);
      open = `${name}(${value.size}) {`;
      close = "}";
    } else {
      items = Object.keys(value).map((k) => `${key(k)}: ${show(value[k])}`);
      open = name === "Object" ? "{" : name ? `${name} {` : "[Object: null prototype] {";
      close = "}";
    }
    if (items.length === 0) return open.endsWith("[") ? `${open}]` : `${open}}`;
    const flat = `${open} ${items.join(", ")} ${close}`;
    if (flat.length <= 72 && !flat.includes("\n")) return flat;
    const pad = "  ".repeat(depth + 1);
    return `${open}\n${items.map((i) => pad + i.replaceAll("\n", `\n${pad}`)).join(",\n")}\n${"  ".repeat(depth)}${close}`;
  } finally {
    seen.delete(value);
  }
}

function constructorName(value) {
  const proto = Object.getPrototypeOf(value);
  if (proto === null) return "";
  return proto.constructor?.name || "Object";
}

function quote(s) {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const escaped = s.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll(q, `\\${q}`);
  return `${q}${escaped}${q}`;
}

function key(k) {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k);
}

/** `util.format`: printf-like `%s %d %i %f %j %o %O %c %%`, then the other arguments inspected, space-separated. */
export function format(...args) {
  if (args.length === 0) return "";
  const [first, ...rest] = args;
  if (typeof first !== "string") return args.map((a) => (typeof a === "string" ? a : inspect(a))).join(" ");
  let i = 0;
  let out = first.replace(/%([sdifjoOc%])/g, (m, c) => {
    if (c === "%") return "%";
    if (i >= rest.length) return m;
    const a = rest[i++];
    switch (c) {
      case "s":
        return typeof a === "string" ? a : typeof a === "object" && a !== null ? inspect(a, 1) : String(a);
      case "d":
      case "i":
        return typeof a === "bigint" ? `${a}n` : String(c === "i" ? Math.trunc(Number(a)) : Number(a));
      case "f":
        return String(Number.parseFloat(a));
      case "j":
        try {
          return JSON.stringify(a);
        } catch {
          return "[Circular]";
        }
      case "c":
        return "";
      default:
        return inspect(a);
    }
  });
  for (const a of rest.slice(i)) out += ` ${typeof a === "string" ? a : inspect(a)}`;
  return out;
}

// ---- deep equality -------------------------------------------------------------------------------------------

/** Node's deep equality: `strict` as `deepStrictEqual` (prototypes and `Object.is`), else as `deepEqual` (`==`). */
export function isDeepEqual(a, b, strict, memo = new Map()) {
  if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true; // eslint-disable-line eqeqeq
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const seen = memo.get(a);
  if (seen === b) return true; // already being compared higher up: a circle
  memo.set(a, b);
  try {
    if (Object.prototype.toString.call(a) !== Object.prototype.toString.call(b)) return false;
    if (a instanceof Date) return a.getTime() === b.getTime();
    if (a instanceof RegExp) return String(a) === String(b) && a.lastIndex === b.lastIndex;
    if (a instanceof Error && (a.message !== b.message || a.name !== b.name)) return false;
    if (ArrayBuffer.isView(a)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!isDeepEqual(a[i], b[i], strict, memo)) return false;
    }
    if (a instanceof Map) {
      if (a.size !== b.size) return false;
      for (const [k, v] of a) {
        if (b.has(k)) {
          if (!isDeepEqual(v, b.get(k), strict, memo)) return false;
        } else if (![...b].some(([k2, v2]) => isDeepEqual(k, k2, strict, memo) && isDeepEqual(v, v2, strict, memo))) {
          return false;
        }
      }
    }
    if (a instanceof Set) {
      if (a.size !== b.size) return false;
      for (const v of a) if (!b.has(v) && ![...b].some((w) => isDeepEqual(v, w, strict, memo))) return false;
    }
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    if (keysA.length !== keysB.length) return false;
    for (const k of keysA) {
      if (!Object.prototype.hasOwnProperty.call(b, k) || !isDeepEqual(a[k], b[k], strict, memo)) return false;
    }
    return true;
  } finally {
    memo.delete(a);
  }
}

// ---- assert ---------------------------------------------------------------------------------------------------

/** Node's `assert.AssertionError`: `code` `ERR_ASSERTION`, with the values compared and the operator. */
export class AssertionError extends Error {
  constructor({ message, actual, expected, operator, stackStartFn } = {}) {
    const generated = message === undefined;
    super(generated ? describe(actual, expected, operator) : String(message));
    this.name = "AssertionError";
    this.generatedMessage = generated;
    this.code = "ERR_ASSERTION";
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
    if (stackStartFn && Error.captureStackTrace) Error.captureStackTrace(this, stackStartFn);
  }
}

const WORDS = {
  strictEqual: "Expected values to be strictly equal:",
  deepStrictEqual: "Expected values to be strictly deep-equal:",
  deepEqual: "Expected values to be loosely deep-equal:",
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
};

function describe(actual, expected, operator) {
  if (operator === "==" || operator === "!=") return `${inspect(actual)} ${operator} ${inspect(expected)}`;
  if (operator === "fail") return "Failed";
  const words = WORDS[operator];
  if (!words) return `${inspect(actual)} ${operator} ${inspect(expected)}`;
  if (operator.startsWith("not")) return `${words}\n\n${inspect(expected)}\n`;
  return `${words}\n\n${inspect(actual)} !== ${inspect(expected)}\n`;
}

function raise(message, fields, stackStartFn) {
  if (message instanceof Error) throw message;
  throw new AssertionError({ message, ...fields, stackStartFn });
}

function matches(error, expected) {
  if (expected === undefined) return true;
  if (typeof expected === "function") {
    if (expected.prototype !== undefined && error instanceof expected) return true;
    if (Error.isPrototypeOf(expected) || expected === Error) return false;
    return expected.call({}, error) === true;
  }
  if (expected instanceof RegExp) return expected.test(String(error));
  if (typeof expected === "object" && expected !== null) {
    return Object.keys(expected).every((k) =>
      expected[k] instanceof RegExp && typeof error?.[k] === "string"
        ? expected[k].test(error[k])
        : isDeepEqual(error?.[k], expected[k], true),
    );
  }
  return false;
}

function makeAssert(strict) {
  function ok(value, message) {
    if (!value) {
      raise(message ?? (arguments.length === 0 ? "No value argument passed to `assert.ok()`" : undefined), {
        actual: value, expected: true, operator: "==",
      }, ok);
    }
  }
  const assert = function assert(value, message) {
    if (!value) raise(message, { actual: value, expected: true, operator: "==" }, assert);
  };
  const equal = (a, b, m) => (a == b || (a !== a && b !== b) ? undefined : raise(m, { actual: a, expected: b, operator: "==" }, equal)); // eslint-disable-line eqeqeq
  const notEqual = (a, b, m) => (a != b ? undefined : raise(m, { actual: a, expected: b, operator: "!=" }, notEqual)); // eslint-disable-line eqeqeq
  const strictEqual = (a, b, m) => (Object.is(a, b) ? undefined : raise(m, { actual: a, expected: b, operator: "strictEqual" }, strictEqual));
  const notStrictEqual = (a, b, m) => (!Object.is(a, b) ? undefined : raise(m, { actual: a, expected: b, operator: "notStrictEqual" }, notStrictEqual));
  const deepEqual = (a, b, m) => (isDeepEqual(a, b, false) ? undefined : raise(m, { actual: a, expected: b, operator: "deepEqual" }, deepEqual));
  const notDeepEqual = (a, b, m) => (!isDeepEqual(a, b, false) ? undefined : raise(m, { actual: a, expected: b, operator: "notDeepEqual" }, notDeepEqual));
  const deepStrictEqual = (a, b, m) => (isDeepEqual(a, b, true) ? undefined : raise(m, { actual: a, expected: b, operator: "deepStrictEqual" }, deepStrictEqual));
  const notDeepStrictEqual = (a, b, m) => (!isDeepEqual(a, b, true) ? undefined : raise(m, { actual: a, expected: b, operator: "notDeepStrictEqual" }, notDeepStrictEqual));
  function throws(fn, expected, message) {
    if (typeof expected === "string") [message, expected] = [expected, undefined];
    try {
      fn();
    } catch (e) {
      if (!matches(e, expected)) throw e;
      return;
    }
    raise(message ?? "Missing expected exception.", { actual: undefined, expected, operator: "throws" }, throws);
  }
  function doesNotThrow(fn, message) {
    try {
      fn();
    } catch (e) {
      raise(typeof message === "string" ? `Got unwanted exception: ${message}` : `Got unwanted exception.\nActual message: "${e?.message}"`, {
        actual: e, operator: "doesNotThrow",
      }, doesNotThrow);
    }
  }
  async function rejects(promiseOrFn, expected, message) {
    if (typeof expected === "string") [message, expected] = [expected, undefined];
    try {
      await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
    } catch (e) {
      if (!matches(e, expected)) throw e;
      return;
    }
    raise(message ?? "Missing expected rejection.", { actual: undefined, expected, operator: "rejects" }, rejects);
  }
  async function doesNotReject(promiseOrFn, message) {
    try {
      await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
    } catch (e) {
      raise(message ?? `Got unwanted rejection.\nActual message: "${e?.message}"`, { actual: e, operator: "doesNotReject" }, doesNotReject);
    }
  }
  const match = (s, re, m) => (re.test(s) ? undefined : raise(m ?? `The input did not match the regular expression ${re}. Input:\n\n${inspect(s)}\n`, { actual: s, expected: re, operator: "match" }, match));
  const doesNotMatch = (s, re, m) => (!re.test(s) ? undefined : raise(m ?? `The input was expected to not match the regular expression ${re}. Input:\n\n${inspect(s)}\n`, { actual: s, expected: re, operator: "doesNotMatch" }, doesNotMatch));
  const fail = (m = "Failed") => raise(m, { operator: "fail" }, fail);
  const ifError = (v) => {
    if (v !== null && v !== undefined) throw v instanceof Error ? v : new AssertionError({ message: `ifError got unwanted exception: ${inspect(v)}`, actual: v, operator: "ifError" });
  };
  Object.assign(assert, {
    ok, equal: strict ? strictEqual : equal, notEqual: strict ? notStrictEqual : notEqual, strictEqual,
    notStrictEqual, deepEqual: strict ? deepStrictEqual : deepEqual, notDeepEqual: strict ? notDeepStrictEqual : notDeepEqual,
    deepStrictEqual, notDeepStrictEqual, throws, doesNotThrow, rejects, doesNotReject, match, doesNotMatch, fail,
    ifError, AssertionError,
  });
  return assert;
}

/** `node:assert`. */
export const assert = makeAssert(false);
/** `node:assert/strict`, also `assert.strict`. */
export const strictAssert = makeAssert(true);
assert.strict = strictAssert;
strictAssert.strict = strictAssert;

// ---- events ---------------------------------------------------------------------------------------------------

/** `node:events`' EventEmitter: listeners by event name, called in order; `error` with no listener throws. */
export class EventEmitter {
  #listeners = new Map();

  on(name, listener) {
    this.emit("newListener", name, listener);
    this.#listeners.set(name, [...(this.#listeners.get(name) ?? []), listener]);
    return this;
  }

  once(name, listener) {
    const once = (...args) => {
      this.off(name, once);
      listener.apply(this, args);
    };
    once.listener = listener;
    return this.on(name, once);
  }

  off(name, listener) {
    const list = this.#listeners.get(name) ?? [];
    const at = list.findIndex((l) => l === listener || l.listener === listener);
    if (at >= 0) this.#listeners.set(name, list.toSpliced(at, 1));
    return this;
  }

  emit(name, ...args) {
    const list = this.#listeners.get(name) ?? [];
    if (name === "error" && list.length === 0) throw args[0] instanceof Error ? args[0] : new Error(`Unhandled error. (${inspect(args[0])})`);
    for (const listener of list) listener.apply(this, args);
    return list.length > 0;
  }

  removeAllListeners(name) {
    if (name === undefined) this.#listeners.clear();
    else this.#listeners.delete(name);
    return this;
  }

  listenerCount(name) {
    return (this.#listeners.get(name) ?? []).length;
  }

  listeners(name) {
    return (this.#listeners.get(name) ?? []).map((l) => l.listener ?? l);
  }

  eventNames() {
    return [...this.#listeners.keys()].filter((k) => this.#listeners.get(k).length > 0);
  }
}
EventEmitter.prototype.addListener = EventEmitter.prototype.on;
EventEmitter.prototype.removeListener = EventEmitter.prototype.off;
EventEmitter.EventEmitter = EventEmitter;

// ---- util -----------------------------------------------------------------------------------------------------

/** `node:util`, the part a reproducer uses. */
export const util = {
  format,
  inspect: (value) => inspect(value),
  isDeepStrictEqual: (a, b) => isDeepEqual(a, b, true),
  promisify: (fn) => (...args) =>
    new Promise((resolve, reject) => fn(...args, (err, value) => (err ? reject(err) : resolve(value)))),
  inherits: (ctor, superCtor) => Object.setPrototypeOf(ctor.prototype, superCtor.prototype),
  deprecate: (fn) => fn,
  types: { isPromise: (v) => v instanceof Promise, isDate: (v) => v instanceof Date, isRegExp: (v) => v instanceof RegExp },
};

// ---- path -----------------------------------------------------------------------------------------------------

/** `node:path`, POSIX, the part scripts use: join, resolve, relative, dirname, basename, extname, normalize. */
export function makePath(cwd) {
  const normalize = (p) => {
    const absolute = p.startsWith("/");
    const out = [];
    for (const part of p.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (out.length && out[out.length - 1] !== "..") out.pop();
        else if (!absolute) out.push("..");
      } else out.push(part);
    }
    const joined = out.join("/");
    return absolute ? `/${joined}` : joined || ".";
  };
  const resolve = (...parts) => {
    let p = "";
    for (const part of parts) p = part.startsWith("/") ? part : `${p}/${part}`;
    return normalize(p.startsWith("/") ? p : `${cwd()}/${p}`);
  };
  const dirname = (p) => {
    const at = p.replace(/\/+$/, "").lastIndexOf("/");
    return at < 0 ? "." : at === 0 ? "/" : p.slice(0, at);
  };
  const basename = (p, ext) => {
    const base = p.replace(/\/+$/, "").split("/").pop();
    return ext && base.endsWith(ext) ? base.slice(0, -ext.length) : base;
  };
  const extname = (p) => {
    const base = basename(p);
    const at = base.lastIndexOf(".");
    return at <= 0 ? "" : base.slice(at);
  };
  const relative = (from, to) => {
    const a = resolve(from).split("/").filter(Boolean);
    const b = resolve(to).split("/").filter(Boolean);
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/");
  };
  const path = {
    sep: "/", delimiter: ":", normalize, resolve, dirname, basename, extname, relative,
    join: (...parts) => normalize(parts.filter((p) => p !== "").join("/") || "."),
    isAbsolute: (p) => p.startsWith("/"),
  };
  path.posix = path;
  return path;
}

// ---- test -----------------------------------------------------------------------------------------------------

/**
 * `node:test` as far as a repository's tests use it: `test` (`it`), `describe` (`suite`), their `skip`, `todo` and
 * `only`, hooks (`before`, `after`, `beforeEach`, `afterEach`), subtests through the context's `t.test`. Tests are
 * collected while the file loads and run in order when `run(file)` is called, which yields the events Node's test
 * runner gives a reporter (`test:start`, `test:pass`, `test:fail`, with `name`, `nesting`, `file`, `details`,
 * `skip`, `todo`), so that the same reporter reads them.
 */
export function makeTestRunner() {
  const hooks = () => ({ before: [], after: [], beforeEach: [], afterEach: [] });
  const root = { name: "", children: [], hooks: hooks(), suite: true };
  const outcome = { failed: 0, declared: () => root.children.length > 0 };
  let current = root;
  /** A test or suite from the arguments Node takes (`name?, options?, fn?`); a suite's body runs now. */
  const nodeOf = (suite, args, options = {}) => {
    let [name, opts, fn] = args;
    if (typeof name === "function") [name, opts, fn] = [name.name || "<anonymous>", {}, name];
    else if (typeof opts === "function") [opts, fn] = [{}, opts];
    opts = { ...opts, ...options };
    const node = { name: String(name ?? "<anonymous>"), fn, suite, skip: !!opts.skip, todo: !!opts.todo, children: [], hooks: hooks() };
    if (suite && typeof fn === "function") {
      const outer = current;
      current = node;
      try {
        fn();
      } finally {
        current = outer;
      }
    }
    return node;
  };
  const withVariants = (suite) => {
    const add = (args, options) => {
      current.children.push(nodeOf(suite, args, options));
      return Promise.resolve();
    };
    const f = (...args) => add(args);
    f.skip = (...args) => add(args, { skip: true });
    f.todo = (...args) => add(args, { todo: true });
    f.only = (...args) => add(args);
    return f;
  };
  const test = withVariants(false);
  const describe = withVariants(true);
  const hook = (kind) => (fn) => current.hooks[kind].push(fn);
  const api = {
    test, it: test, describe, suite: describe,
    before: hook("before"), after: hook("after"), beforeEach: hook("beforeEach"), afterEach: hook("afterEach"),
  };
  Object.assign(test, api);

  /** Runs what was collected for `file` and yields the reporter's events, test by test. */
  async function* run(file) {
    const events = [];
    async function runNode(node, nesting, eaches) {
      events.push({ type: "test:start", data: { name: node.name, nesting, file } });
      const details = node.suite ? { type: "suite" } : {};
      if (node.skip || node.todo) {
        events.push({ type: "test:pass", data: { name: node.name, nesting, file, details, skip: node.skip || undefined, todo: node.todo || undefined } });
        return true;
      }
      let error = null;
      try {
        if (node.suite) {
          for (const h of node.hooks.before) await h();
          const inner = { before: [...eaches.before, ...node.hooks.beforeEach], after: [...node.hooks.afterEach, ...eaches.after] };
          for (const child of node.children) if (!(await runNode(child, nesting + 1, inner))) error ??= new Error("subtests failed");
          for (const h of node.hooks.after) await h();
        } else {
          for (const h of eaches.before) await h();
          const subtests = [];
          const context = {
            name: node.name,
            assert: strictAssert,
            test: (...args) => {
              const done = runNode(nodeOf(false, args), nesting + 1, { before: [], after: [] });
              subtests.push(done);
              return done;
            },
            diagnostic() {}, skip() {}, todo() {}, plan() {},
          };
          if (typeof node.fn === "function") {
            if (node.fn.length >= 2) await new Promise((resolve, reject) => node.fn(context, (e) => (e ? reject(e) : resolve())));
            else await node.fn(context);
          }
          if ((await Promise.all(subtests)).includes(false)) error = new Error("subtests failed");
          for (const h of eaches.after) await h();
        }
      } catch (e) {
        error = e;
      }
      if (error) {
        outcome.failed += 1;
        events.push({ type: "test:fail", data: { name: node.name, nesting, file, details: { ...details, error: { message: "test failed", cause: error } } } });
        return false;
      }
      events.push({ type: "test:pass", data: { name: node.name, nesting, file, details } });
      return true;
    }
    for (const h of root.hooks.before) await h();
    for (const child of root.children) {
      await runNode(child, 0, { before: root.hooks.beforeEach, after: root.hooks.afterEach });
      yield* events.splice(0);
    }
    for (const h of root.hooks.after) await h();
  }
  return { api, run, outcome };
}
