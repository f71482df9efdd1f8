// The WIT component (dist/acr_core.component.wasm, `make component`) in Node through `jco transpile`: files in,
// index, a search, locate, apply, the syntax gate and refused files, each checked against the npm package built
// from the same core (they must agree to the byte).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { fixtureFiles, loadComponent, loadPackage } from "./harness.mjs";

let component;
let acr;
let repo;
let reference;
before(async () => {
  component = await loadComponent();
  acr = await loadPackage();
  const files = fixtureFiles("minirepo");
  repo = new component.repository.Repo();
  const refused = repo.addFiles(Object.entries(files).map(([path, contents]) => ({ path, contents })));
  assert.deepEqual(refused, []);
  reference = acr.Repo.fromFiles(files);
});

/** Calls `fn` and returns what it threw, failing when nothing is thrown. */
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("expected an error");
}

test("the component exports the four interfaces with functions", () => {
  for (const name of ["repository", "search", "locate", "edits"]) assert.equal(typeof component[name], "object", name);
  assert.equal(typeof component.repository.Repo, "function");
  assert.deepEqual(Object.keys(component.search).sort(), [
    "call", "getClassFullSnippet", "getCodeAroundLine", "parseCall", "searchClass", "searchClassInFile", "searchCode",
    "searchCodeInFile", "searchMethod", "searchMethodInClass", "searchMethodInFile",
  ]);
});

test("index: the same counts as the npm package", () => {
  const stats = repo.index();
  const expected = reference.index();
  assert.deepEqual(
    { ...stats, bytes: Number(stats.bytes) }, // u64 arrives as a BigInt
    { files: expected.files, parsed: expected.parsed, withErrors: expected.withErrors, classes: expected.classes,
      methods: expected.methods, functions: expected.functions, bytes: expected.bytes },
  );
  assert.deepEqual([stats.files, stats.classes, stats.methods, stats.functions], [3, 3, 6, 3]);
  assert.equal(repo.readFile("shop/__init__.py"), "from .orders import Order\n");
});

test("search: typed calls and `call` give the package's text and hits", () => {
  const typed = component.search.searchMethodInClass(repo, "total", "Order");
  const expected = reference.searchMethodInClass("total", "Order");
  assert.equal(typed.ok, true);
  assert.equal(typed.text, expected.text);
  assert.deepEqual(typed.results, [{ file: "shop/orders.py", start: 18, end: 19, class: "Order", func: "total" }]);
  const byName = component.search.call(repo, "search_code_in_file", ["lines or []", "orders.py"]);
  assert.equal(byName.text, reference.searchCodeInFile("lines or []", "orders.py").text);
  const around = component.search.getCodeAroundLine(repo, "orders.py", 15, undefined);
  assert.equal(around.text, reference.getCodeAroundLine("orders.py", 15).text, "an absent window means 10");
  const miss = component.search.searchClass(repo, "Nowhere");
  assert.equal(miss.ok, false);
});

test("search: a bad call throws with the error record as payload", () => {
  const empty = thrown(() => component.search.searchClass(repo, " "));
  assert.deepEqual(empty.payload, {
    kind: "empty-argument", param: "class_name", message: "The argument `class_name` of search_class must not be empty.",
  });
  const unknown = thrown(() => component.search.call(repo, "search_klass", ["A"]));
  assert.equal(unknown.payload.kind, "unknown-api");
});

test("search: parseCall reads a call as the agent does, and call runs it", () => {
  const c = component.search.parseCall('search_method_in_class(class_name="Order", method_name="total")');
  assert.deepEqual(c, { api: "search_method_in_class", args: ["total", "Order"], text: 'search_method_in_class("total", "Order")' });
  assert.equal(component.search.call(repo, c.api, c.args).text, reference.searchMethodInClass("total", "Order").text);
  assert.equal(thrown(() => component.search.parseCall("search_class(Order)")).payload.kind, "other");
});

test("locate: tiers and context as variants", () => {
  const r = component.locate.locate(repo, { class: "Order", method: "describe" }, "describe the order");
  assert.equal(r.tier, "method-in-class");
  assert.equal(r.locations[0].class, "Base", "inherited from the ancestor");
  assert.equal(r.locations[0].intendedBehavior, "describe the order");
  assert.deepEqual(r.attempts[0].outcome.tag, "found");
  assert.equal(r.attempts[1].outcome.tag, "not-reached");
});

test("apply: the package's diff, with each edit's outcome as a variant", () => {
  const answer = "<file>shop/orders.py</file>\n<original>return Order(list(lines))</original>\n"
    + "<patched>return Order(sorted(lines))</patched>\n"
    + "<file>shop/orders.py</file>\n<original>return nothing</original>\n<patched>return 0</patched>\n";
  const x = component.edits.apply(repo, answer);
  const expected = acr.applyEdits(reference, answer);
  assert.equal(x.status, "applicable-patch");
  assert.equal(x.diff, expected.diff);
  assert.match(x.diff, /^\+    return Order\(sorted\(lines\)\)$/m);
  assert.deepEqual(x.files.map((f) => f.path), ["shop/orders.py"]);
  assert.equal(x.edits[0].outcome.tag, "applied");
  assert.equal(x.edits[0].outcome.val.start, 28);
  assert.equal(x.edits[1].outcome.tag, "failed");
  assert.equal(x.edits[1].outcome.val.tag, "original-not-found");
  assert.equal(x.edits[1].outcome.val.val.wanted, "return nothing");
  assert.equal(x.edits[1].message, expected.edits[1].message);
});

test("apply: an ambiguous edit's places as data, as the package gives them", () => {
  const files = { "m.py": "class A:\n    def f(self):\n        return 0\n\n    def g(self):\n        return 0\n" };
  const r = new component.repository.Repo();
  r.addFiles(Object.entries(files).map(([path, contents]) => ({ path, contents: new TextEncoder().encode(contents) })));
  const answer = "<file>m.py</file><original>return 0</original><patched>return 1</patched>";
  const x = component.edits.apply(r, answer);
  assert.equal(x.edits[0].outcome.tag, "failed");
  assert.equal(x.edits[0].outcome.val.tag, "ambiguous");
  assert.deepEqual(x.edits[0].outcome.val.val, [
    { line: 3, endLine: 3, enclosing: "A.f" },
    { line: 6, endLine: 6, enclosing: "A.g" },
  ]);
  const expected = acr.applyEdits(acr.Repo.fromFiles(files), answer).edits[0];
  assert.deepEqual(x.edits[0].outcome.val.val, expected.candidates);
});

test("check-syntax: ok, or the first problem as the error payload", () => {
  assert.equal(component.edits.checkSyntax("x = 1\n"), undefined);
  const e = thrown(() => component.edits.checkSyntax("def f(:\n    pass\n"));
  assert.deepEqual(e.payload, { line: 1, column: 7, kind: "syntax", message: "line 1, column 7: invalid syntax" });
  assert.equal(e.payload.message, acr.checkSyntax("def f(:\n    pass\n").message);
});

test("refused files: a reason variant per file, and the repository keeps working", () => {
  const r = new component.repository.Repo();
  assert.deepEqual(thrown(() => r.addFile("latin.py", Uint8Array.from([0x63, 0xe9]))).payload, { tag: "not-utf8" });
  assert.deepEqual(thrown(() => r.addFile("blob.py", Uint8Array.from([0, 1]))).payload, { tag: "binary" });
  const huge = thrown(() => r.addFile("huge.py", new Uint8Array(5 << 20).fill(120))).payload;
  assert.deepEqual(huge, { tag: "too-large", val: { bytes: 5242880n, limit: 4194304n } });
  assert.deepEqual(thrown(() => r.addFile("../x.py", Uint8Array.from([120]))).payload, { tag: "unsafe-path", val: "parent-dir" });
  assert.equal(r.addFile("ok.py", new TextEncoder().encode("def f():\n    pass\n")), "ok.py");
  assert.deepEqual(r.skipped().map((s) => s.reason.tag), ["not-utf8", "binary", "too-large", "unsafe-path"]);
  assert.equal(r.index().functions, 1);
  r[Symbol.dispose]();
});
