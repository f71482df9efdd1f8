// Hostile inputs against the npm package: arguments that throw while being read, a trap in the core, and
// repositories built to exhaust memory or forge diff headers. After each, the package must keep working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPackage } from "./harness.mjs";
import { FORGED_PATH, forgedPathZip, longClassNameZip } from "../hostile/inputs.mjs";

const pkg = await loadPackage();
const { Repo, applyEdits, checkSyntax, __testing } = pkg;
const SOURCE = { "shop/cart.py": "class Cart:\n    def total(self, items):\n        return sum(items) + 1\n" };

/** Runs `fn`, which must throw an AcrError with `code`; returns the error. */
function throwsCode(fn, code) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, "it throws");
  assert.equal(caught.name, "AcrError", String(caught));
  assert.equal(caught.code, code, String(caught));
  return caught;
}

function works(repo) {
  const out = repo.searchMethodInClass("total", "Cart");
  assert.equal(out.ok, true);
  assert.match(out.text, /return sum\(items\) \+ 1/);
}

// Regression: a throwing getter, Proxy or locate argument left the Repo borrowed for good ("recursive use of an
// object detected" on every later call).
test("arguments that throw while being read leave the Repo usable", () => {
  const repo = Repo.fromFiles(SOURCE);
  const getter = { get method_name() { throw new Error("getter says no"); } };
  assert.match(throwsCode(() => repo.search("search_method", getter), "BAD_INPUT").message, /getter says no/);
  works(repo);
  const proxy = new Proxy({}, { ownKeys() { throw new Error("trap says no"); } });
  throwsCode(() => repo.search("search_method", proxy), "BAD_INPUT");
  works(repo);
  const revoked = Proxy.revocable([], {});
  revoked.revoke();
  throwsCode(() => repo.searchMethod(revoked.proxy), "BAD_INPUT");
  works(repo);
  throwsCode(() => repo.locate({ get file() { throw new Error("no file"); } }), "BAD_INPUT");
  works(repo);
  const cyclic = {};
  cyclic.self = cyclic;
  throwsCode(() => applyEdits(repo, "x", cyclic), "BAD_INPUT");
  works(repo);
  throwsCode(() => Repo.fromFiles({ get "a.py"() { throw new Error("no"); } }), "BAD_INPUT");
  throwsCode(() => applyEdits({}, "answer"), "BAD_INPUT");
});

// Regression: out of memory surfaced as a bare `RuntimeError: unreachable`, and the instance stayed unusable.
test("a trap is an AcrError with code TRAPPED, and a new Repo works after it", () => {
  const old = Repo.fromFiles(SOURCE);
  works(old);
  const trap = throwsCode(() => __testing.trap(), "TRAPPED");
  assert.ok(trap.cause instanceof WebAssembly.RuntimeError, "the trap is kept as the cause");
  throwsCode(() => old.index(), "TRAPPED");
  throwsCode(() => applyEdits(old, "x"), "TRAPPED");
  old.free(); // freeing an object of a dead instance is allowed and does nothing
  const fresh = Repo.fromFiles(SOURCE);
  works(fresh);
  assert.equal(checkSyntax("def f(:\n").ok, false);
  const applied = applyEdits(fresh, "<file>shop/cart.py</file><original>return sum(items) + 1</original><patched>return sum(items)</patched>");
  assert.equal(applied.status, "APPLICABLE_PATCH");
});

// Regression: a 7 KB zip (a 100,000-character class name, 30,000 methods) ended in `RuntimeError: unreachable`.
test("a zip built to blow up the index loads and indexes", () => {
  const zip = longClassNameZip();
  assert.ok(zip.length < 64 * 1024, `the hostile zip is small (${zip.length} bytes)`);
  const repo = Repo.fromZip(zip);
  const stats = repo.index();
  assert.equal(stats.classes, 1);
  assert.equal(stats.methods, 30_000);
  assert.equal(stats.functions, 1);
  assert.equal(repo.searchMethod("ok").ok, true);
});

// Regression: a path holding newlines could forge the headers of a diff that `patch -p1` then applied to setup.py.
test("paths with control characters or backslashes are refused, and diff headers cannot be forged", () => {
  const strict = throwsCode(() => Repo.fromFiles({ [FORGED_PATH]: "y = 2\n" }), "REFUSED_FILES");
  assert.match(strict.message, /control character/);
  throwsCode(() => Repo.fromFiles({ "sub\\evil.py": "x = 1\n" }), "REFUSED_FILES");
  const repo = Repo.fromZip(forgedPathZip());
  assert.deepEqual(repo.files(), ["setup.py"]);
  const reasons = repo.skipped().map((s) => [s.reason, s.message]);
  assert.deepEqual(reasons.map(([r]) => r), ["unsafe_path", "unsafe_path"]);
  assert.match(reasons[0][1], /control character/);
  assert.match(reasons[1][1], /backslash/);
  const answer = `<file>${FORGED_PATH}</file><original>y = 2</original><patched>import os</patched>`;
  const result = applyEdits(repo, answer);
  assert.notEqual(result.status, "APPLICABLE_PATCH");
  assert.doesNotMatch(result.diff, /\+\+\+ b\/setup\.py/);
});
