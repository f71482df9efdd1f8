// The npm package as a user gets it (pkg/dist): load a zip, index, every search API, locate, apply an answer,
// check syntax, and bad input met with thrown Errors rather than crashes. `make pkg` builds it.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PKG_DIST, ROOT, loadPackage, projectWithPackage, readmeBlock, runBin, zipEntries, zipFixture } from "./harness.mjs";

let acr;
let repo;
before(async () => {
  acr = await loadPackage();
  repo = acr.Repo.fromZip(readFileSync(zipFixture("minirepo")));
});

/** Calls `fn` and returns the thrown error, failing when nothing is thrown. */
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("expected an error");
}

function assertAcrError(e, code, message) {
  assert.ok(e instanceof Error, `an Error, got ${e}`);
  assert.equal(e.name, "AcrError");
  assert.equal(e.code, code);
  assert.match(e.message, message);
}

test("a fixture zip is loaded and indexed", () => {
  assert.deepEqual(repo.files(), ["shop/__init__.py", "shop/broken.py", "shop/orders.py", "tests/test_orders.py"]);
  assert.deepEqual(repo.skipped(), []);
  const stats = repo.index();
  // Written for the fixture: 3 non-test sources, one with a syntax error; Base, Order, Survivor; describe, __init__,
  // total, refresh, stamp (nested in a method), method; make_order, fine, broken.
  assert.deepEqual(
    { ...stats, bytes: undefined },
    { files: 3, parsed: 2, withErrors: 1, classes: 3, methods: 6, functions: 3, bytes: undefined, skipped: 0, languages: { Python: 3 } },
  );
  assert.ok(stats.bytes > 500);
  assert.equal(repo.file("shop/__init__.py"), "from .orders import Order\n");
  assert.equal(repo.file("nope.py"), undefined);
});

const CALLS = [
  ["searchClass", ["Order"], "class Order(Base):", { file: "shop/orders.py", start: 9, end: 24, class: "Order", func: null }],
  ["searchClassInFile", ["Order", "orders.py"], "def stamp():", { file: "shop/orders.py", start: 9, end: 24, class: "Order", func: null }],
  ["searchMethod", ["make_order"], "def make_order(*lines):", { file: "shop/orders.py", start: 27, end: 28, class: null, func: "make_order" }],
  ["searchMethodInFile", ["total", "shop/orders.py"], "return sum(price * qty", { file: "shop/orders.py", start: 18, end: 19, class: "Order", func: "total" }],
  ["searchMethodInClass", ["refresh", "Order"], "async def refresh(self):", { file: "shop/orders.py", start: 21, end: 24, class: "Order", func: "refresh" }],
  ["searchCode", ["datetime.now()"], "<func>refresh</func>", { file: "shop/orders.py", start: 23, end: 23, class: "Order", func: "refresh" }],
  ["searchCodeInFile", ["lines or []", "orders.py"], "self.lines = lines or []", { file: "shop/orders.py", start: 15, end: 15, class: "Order", func: "__init__" }],
  ["getCodeAroundLine", ["shop/orders.py", 15, 1], "15         self.lines = lines or []", { file: "shop/orders.py", start: 14, end: 16, class: "Order", func: "__init__" }],
  ["getClassFullSnippet", ["Survivor"], "return 3", { file: "shop/broken.py", start: 9, end: 11, class: "Survivor", func: null }],
];

test("every search API answers, through its method and through search()", () => {
  const methods = acr.apis().map((a) => a.method);
  assert.deepEqual(methods.sort(), CALLS.map(([m]) => m).sort(), "one test call per API");
  for (const [method, args, shown, firstHit] of CALLS) {
    const out = repo[method](...args);
    assert.equal(out.ok, true, `${method}: ${out.text}`);
    assert.ok(out.text.includes(shown), `${method} should show ${shown}:\n${out.text}`);
    assert.deepEqual(out.results[0], firstHit, method);
    const api = acr.apis().find((a) => a.method === method);
    assert.deepEqual(repo.search(api.name, args), out, `search("${api.name}", list)`);
    const named = Object.fromEntries(api.params.slice(0, args.length).map((p, i) => [p, args[i]]));
    assert.deepEqual(repo.search(method, named), out, `search("${method}", object)`);
  }
});

test("parseCall reads a call as the agent does, and search() runs it", () => {
  const c = acr.parseCall('search_method_in_class(class_name="Order", method_name: "total")');
  assert.deepEqual(c, {
    api: "search_method_in_class", args: { method_name: "total", class_name: "Order" },
    call: 'search_method_in_class("total", "Order")',
  });
  assert.deepEqual(repo.search(c.api, c.args), repo.searchMethodInClass("total", "Order"));
  assert.deepEqual(acr.parseCall("get_code_around_line('orders.py', 15)").args, { file_name: "orders.py", line_no: 15, window: 10 });
  assertAcrError(thrown(() => acr.parseCall("search_class(Order)")), "BAD_SEARCH", /put text arguments in quotes/);
  assertAcrError(thrown(() => acr.parseCall("search_code_in_class('x', 'Order')")), "BAD_SEARCH", /Unknown function `search_code_in_class`/);
});

test("search arguments may be camelCase keys, a list or a single value", () => {
  const a = repo.search("search_method_in_class", { methodName: "total", className: "Order" });
  const b = repo.search("searchMethodInClass", ["total", "Order"]);
  assert.deepEqual(a, b);
  assert.deepEqual(repo.search("search_class", "Base"), repo.searchClass("Base"));
  assert.deepEqual(repo.getCodeAroundLine("orders.py", 15), repo.getCodeAroundLine("orders.py", 15, 10), "window defaults to 10");
});

test("a search that finds nothing is an answer, not an error", () => {
  const out = repo.searchClass("Nowhere");
  assert.equal(out.ok, false);
  assert.deepEqual(out.results, []);
  assert.match(out.text, /Nowhere/);
});

test("locate resolves a bug location, with the class and an ancestor as context", () => {
  const r = repo.locate({ class: "Order", method: "total" }, "round the sum");
  assert.equal(r.found, true);
  assert.equal(r.tier, "method_in_class");
  assert.equal(r.locations.length, 1);
  assert.deepEqual({ ...r.locations[0], code: undefined }, {
    file: "shop/orders.py", class: "Order", method: "total", start: 18, end: 19, code: undefined,
    intendedBehavior: "round the sum",
  });
  assert.ok(r.context.some((c) => c.kind === "enclosing_class" && c.location.start === 9));
  const inherited = repo.locate({ class: "Order", method: "describe" });
  assert.equal(inherited.locations[0].class, "Base");
  const split = repo.locate({ method: "Order.refresh" });
  assert.deepEqual([split.query.class, split.query.method], ["Order", "refresh"]);
  assert.equal(split.query.notes.length, 1);
  const missing = repo.locate({ file: "nowhere.py" });
  assert.equal(missing.found, false);
  assert.match(missing.message, /nowhere\.py/);
});

test("a Java project is indexed, searched and located as Python is", () => {
  const java = acr.Repo.fromZip(readFileSync(zipFixture("javarepo")));
  const stats = java.index();
  assert.deepEqual([stats.files, stats.classes, stats.methods, stats.functions], [6, 8, 17, 0], "tests left out");
  assert.deepEqual(stats.languages, { Java: 6 });
  const adds = java.search("search_method_in_class", { method_name: "add", class_name: "Cart" });
  assert.equal(adds.results.length, 2, "overloads are separate results");
  const nested = java.search("search_class", { class_name: "Line" });
  assert.match(nested.text, /public record Line\(Item item, int units\) \{/);
  const inherited = java.locate({ class: "Cart", method: "isEmpty" });
  assert.deepEqual([inherited.locations[0].file, inherited.locations[0].class], ["src/main/java/shop/Basket.java", "Basket"]);
});

test("JavaScript and TypeScript are indexed, searched, and gated as V8 and the typescript package parse them", () => {
  const scripts = acr.Repo.fromZip(readFileSync(zipFixture("jsrepo")));
  const stats = scripts.index();
  assert.equal(stats.files, 4, "tests (*.test.*, *.spec.*, __tests__/, test/) left out");
  assert.deepEqual(stats.languages, { JavaScript: 2, TypeScript: 2 }, ".ts and .tsx count as one language");
  assert.equal(stats.withErrors, 0);
  assert.match(scripts.searchClass("Cart").text, /class Cart extends Basket/);
  const located = scripts.locate({ class: "Cart", method: "isEmpty" });
  assert.equal(located.locations[0].file, "src/basket.js", "an inherited method is found in its class");
  assert.equal(acr.checkSyntax("const f = (a) => { return a; };\n", { path: "m.mjs" }).ok, true);
  const js = acr.checkSyntax("let a = 1;\nlet a = 2;\n", { path: "src/a.js" });
  assert.deepEqual([js.ok, js.line], [false, 2], "a name declared twice is refused, as V8 refuses it");
  assert.equal(acr.checkSyntax("let n: number = 1;\n", { path: "a.ts" }).ok, true);
  assert.equal(acr.checkSyntax("let n: number = 1;\n", { path: "a.js" }).ok, false, "types are not JavaScript");
  assert.equal(acr.checkSyntax("const v = <div>{n}</div>;\n", { path: "v.tsx" }).ok, true);
  assert.equal(acr.checkSyntax("def f():\n    pass\n").ok, true, "Python without a path");
  assertAcrError(thrown(() => acr.checkSyntax("x", { path: "notes.md" })), "BAD_INPUT", /notes\.md.*\.py .*\.ts/);
  assertAcrError(thrown(() => acr.checkSyntax("x", { file: "a.ts" })), "BAD_INPUT", /unknown field `file`/);
  scripts.free();
});

test("the README's TypeScript example runs as written", () => {
  const dir = projectWithPackage("readme-ts");
  writeFileSync(join(dir, "example.mjs"), readmeBlock(join(ROOT, "pkg", "README.md"), "typescript"));
  const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8" });
  assert.match(out, /^RAW_PATCH_BUT_UNMATCHED breaks_syntax [^\n]*\nEdit 1 \(src\/cart.ts\): the edit at line 3 would break/m, out);
  assert.match(out, /^APPLICABLE_PATCH /m);
  assert.match(out, /^\+    return prices\.reduce\(\(sum, p\) => sum \+ p, 0\);$/m);
  assert.match(out, /ok: false,\s+line: 1,/);
});

test("an answer is applied in memory; each edit says what became of it", () => {
  const answer = [
    "<file>shop/orders.py</file>",
    "<original>",
    "        return sum(price * qty for price, qty in self.lines)",
    "</original>",
    "<patched>",
    "        return round(sum(price * qty for price, qty in self.lines), 2)",
    "</patched>",
    "<file>tests/test_orders.py</file><original>x</original><patched>y</patched>",
    "<file>shop/orders.py</file><original>return nothing</original><patched>return 0</patched>",
  ].join("\n");
  const r = acr.applyEdits(repo, answer);
  assert.equal(r.status, "APPLICABLE_PATCH");
  assert.equal(r.applicable, true);
  assert.match(r.diff, /^-        return sum\(price \* qty for price, qty in self\.lines\)$/m);
  assert.match(r.diff, /^\+        return round\(sum\(price \* qty for price, qty in self\.lines\), 2\)$/m);
  assert.deepEqual(Object.keys(r.files), ["shop/orders.py"]);
  assert.deepEqual(r.edits.map((e) => [e.outcome, e.failure]), [["applied", null], ["dropped", "test_file"], ["failed", "not_found"]]);
  assert.deepEqual([r.edits[0].start, r.edits[0].end, r.edits[0].changed], [19, 19, true]);
  assert.match(r.reason, /1 of the edits could not be applied/);
  assert.match(repo.file("shop/orders.py"), /        return sum\(price/, "the repository is not changed");

  const elsewhere = acr.applyEdits(repo, "<file>nowhere.py</file><original>return 3</original><patched>return 4</patched>");
  assert.equal(elsewhere.status, "RAW_PATCH_BUT_UNMATCHED");
  assert.equal(elsewhere.edits[0].failure, "file_not_found");
  assert.equal(elsewhere.edits[0].candidates, null, "only ambiguous edits have candidates");
  assert.equal(acr.applyEdits(repo, "no edits here").status, "RAW_PATCH_BUT_UNPARSED");
  assert.equal(acr.applyEdits(repo, "").status, "NO_PATCH");
});

test("applyEdits options: ambiguous originals can be refused, or placed by a bug line", () => {
  const files = { "a.py": "def f():\n    return 1\n\n\ndef g():\n    return 1\n" };
  const r = acr.Repo.fromFiles(files);
  const answer = "<file>a.py</file><original>return 1</original><patched>return 2</patched>";
  const refused = acr.applyEdits(r, answer).edits[0];
  assert.equal(refused.failure, "ambiguous", "refused by default");
  assert.match(refused.message, /occurs 2 times \(lines 2 in `f`; 6 in `g`\)/);
  assert.deepEqual(refused.candidates, [
    { line: 2, endLine: 2, enclosing: "f" },
    { line: 6, endLine: 6, enclosing: "g" },
  ], "the places, as data");
  assert.equal(acr.applyEdits(r, answer, { refuseAmbiguous: false }).edits[0].start, 2, "the first match on request");
  assert.equal(acr.applyEdits(r, answer, { bugLines: [{ file: "a.py", line: 6 }] }).edits[0].start, 6);
});

test("a function shown whole replaces the one of its name; the format asked is read first", () => {
  const r = acr.Repo.fromFiles({
    "shapes/square.py": "class Square:\n    def __init__(self, side):\n        self.side = side\n\n    def area(self):\n        return self.side * 2\n",
  });
  const answer = "The area is the side squared.\n\n```python\n     5     def area(self):\n     6         return self.side ** 2\n```\n";
  const applied = acr.applyEdits(r, answer);
  assert.equal(applied.status, "APPLICABLE_PATCH", applied.reason);
  assert.deepEqual(applied.formats, ["definition"]);
  assert.match(applied.files["shapes/square.py"], /return self\.side \*\* 2\n$/);
  assert.match(applied.edits[0].message, /replaced `Square\.area`/);
  // Asked for SEARCH/REPLACE: the fenced definition is still read, as nothing in the asked format is there.
  assert.equal(acr.applyEdits(r, answer, { format: "search-replace" }).status, "APPLICABLE_PATCH");
  const unknown = acr.applyEdits(r, "```python\ndef volume(self):\n    return 0\n```\n");
  assert.equal(unknown.edits[0].failure, "no_definition");
});

test("checkSyntax gives the first problem with a 1-based position", () => {
  assert.deepEqual(acr.checkSyntax("x = 1\n"), { ok: true, line: null, column: null, message: null, kind: null });
  const bad = acr.checkSyntax("def f():\n    x = 1\n  return x\n");
  assert.deepEqual([bad.ok, bad.line, bad.column, bad.kind], [false, 3, 11, "indentation"]);
  assert.equal(bad.message, "line 3, column 11: unindent does not match any outer indentation level");
  const compile = acr.checkSyntax("def f():\n    pass\nreturn 1\n");
  assert.deepEqual([compile.line, compile.kind, compile.message], [3, "compile", "line 3, column 1: 'return' outside function"]);
});

test("bad input is refused with a thrown Error, and the module keeps working", () => {
  assertAcrError(thrown(() => acr.Repo.fromZip(Buffer.from("PK\u0003\u0004 not really a zip"))), "BAD_ARCHIVE", /^not a readable zip archive/);
  assertAcrError(thrown(() => acr.Repo.fromZip("repo.zip")), "BAD_INPUT", /fromZip: bytes must be a Uint8Array or an ArrayBuffer, not a string/);
  const latin = thrown(() => acr.Repo.fromFiles({ "ok.py": "x = 1\n", "latin.py": Uint8Array.from([0x63, 0x61, 0x66, 0xe9]) }));
  assertAcrError(latin, "REFUSED_FILES", /^1 file refused: latin\.py \(not valid UTF-8 text\)$/);
  const huge = thrown(() => acr.Repo.fromFiles({ "big.py": "x".repeat(5_000_000) }));
  assertAcrError(huge, "REFUSED_FILES", /big\.py \(5000000 bytes, over the 4194304-byte limit\)/);
  const small = thrown(() => acr.Repo.fromFiles({ "a.py": "x = 1\n" }, { maxFileBytes: 3 }));
  assertAcrError(small, "REFUSED_FILES", /a\.py \(6 bytes, over the 3-byte limit\)/);
  assertAcrError(thrown(() => acr.Repo.fromFiles({ "../up.py": "x" })), "REFUSED_FILES", /leaves the repository root/);
  assertAcrError(thrown(() => acr.Repo.fromFiles(null)), "BAD_INPUT", /files must be an object .*, not null/);
  assertAcrError(thrown(() => acr.Repo.fromFiles({ "a.py": 42 })), "BAD_INPUT", /contents of `a\.py` must be a string or a Uint8Array, not a number/);
  assertAcrError(thrown(() => acr.Repo.fromFiles({}, { maxFileByte: 1 })), "BAD_INPUT", /unknown field `maxFileByte`/);
  assertAcrError(thrown(() => repo.search("search_klass", ["A"])), "BAD_SEARCH", /Unknown function `search_klass`/);
  assertAcrError(thrown(() => repo.searchClass()), "BAD_SEARCH", /`class_name` of search_class must be a string/);
  assertAcrError(thrown(() => repo.searchCode("   ")), "BAD_SEARCH", /must not be empty/);
  assertAcrError(thrown(() => repo.getCodeAroundLine("orders.py", -1)), "BAD_SEARCH", /whole number, not `-1`/);
  assertAcrError(thrown(() => repo.locate({ klass: "Order" })), "BAD_INPUT", /unknown field `klass`/);
  assertAcrError(thrown(() => repo.locate()), "BAD_INPUT", /location must be an object/);
  assertAcrError(thrown(() => acr.applyEdits(repo, 7)), "BAD_INPUT", /answer must be a string, not a number/);
  assertAcrError(thrown(() => acr.checkSyntax(undefined)), "BAD_INPUT", /source must be a string, not undefined/);
  assert.equal(repo.index().files, 3, "the repository still answers");
  assert.equal(repo.searchClass("Order").ok, true);
});

test("a zip's unreadable entries are skipped with reasons, not thrown", () => {
  const zip = zipEntries({
    "proj/ok.py": "def f():\n    return 1\n",
    "proj/latin.py": Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    "proj/blob.bin": Uint8Array.from([0, 1, 2, 3]),
    "proj/huge.py": "x = 1\n".repeat(1_000_000),
  });
  const r = acr.Repo.fromZip(zip);
  assert.deepEqual(r.files(), ["ok.py"]);
  const reasons = Object.fromEntries(r.skipped().map((s) => [s.path, s.reason]));
  assert.deepEqual(reasons, { "latin.py": "not_utf8", "blob.bin": "binary", "huge.py": "too_large" });
  assert.equal(r.index().skipped, 3);
  const tight = acr.Repo.fromZip(zip, { maxEntries: 1 });
  assert.ok(tight.skipped().some((s) => s.reason === "budget_exhausted"));
});

test("files added one by one are indexed again", () => {
  const r = new acr.Repo();
  assert.equal(r.index().files, 0);
  assert.equal(r.addFile("./pkg/m.py", "class A:\n    def f(self):\n        pass\n"), "pkg/m.py");
  assert.deepEqual([r.index().classes, r.index().methods], [1, 1]);
  assertAcrError(thrown(() => r.addFile("pkg/b.py", Uint8Array.from([0, 0]))), "REFUSED_FILES", /binary file/);
  assert.deepEqual(r.files(), ["pkg/m.py"], "a refused file is not kept");
  r.free();
});

test("the README's ten-line example runs as written", () => {
  const readme = join(ROOT, "pkg", "README.md");
  const code = readmeBlock(readme, "example");
  assert.equal(code.trimEnd().split("\n").length, 10, "ten lines");
  const dir = projectWithPackage("readme");
  writeFileSync(join(dir, "example.mjs"), code);
  const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8" });
  assert.match(out, /files: 1,/);
  assert.match(out, /Found 1 methods with name total in class Cart\./);
  assert.match(out, /APPLICABLE_PATCH/);
  assert.match(out, /^\+        return sum\(items\)$/m);
  assert.match(out, /ok: false,\s+line: 1,\s+column: 7/);
});

test("package.json names the package and carries the crate's version", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "pkg", "package.json"), "utf8"));
  const cargo = readFileSync(join(ROOT, "Cargo.toml"), "utf8").match(/\[workspace\.package\][^[]*?\nversion = "([^"]+)"/);
  assert.equal(pkg.name, "acr-wasm");
  assert.equal(pkg.version, cargo[1]);
  for (const file of pkg.files) assert.ok(existsSync(join(PKG_DIST, file)), `pkg/dist/${file} is built`);
});

test("the top-level README shows the same example", () => {
  assert.equal(readmeBlock(join(ROOT, "README.md"), "example"), readmeBlock(join(ROOT, "pkg", "README.md"), "example"));
});

test("the TypeScript declarations cover the API (tsc --strict on the README example and a typed program)", () => {
  const dir = projectWithPackage("types");
  writeFileSync(join(dir, "example.ts"), readmeBlock(join(ROOT, "pkg", "README.md"), "example"));
  writeFileSync(join(dir, "gated.ts"), readmeBlock(join(ROOT, "pkg", "README.md"), "typescript"));
  writeFileSync(join(dir, "typed.ts"), readFileSync(join(ROOT, "tests", "node", "typed.ts"), "utf8"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", types: [], lib: ["es2022", "dom", "esnext.disposable"], skipLibCheck: false },
    files: ["example.ts", "gated.ts", "typed.ts"],
  }));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  try {
    runBin("tsc", ["-p", "tsconfig.json"], { cwd: dir });
  } catch (e) {
    assert.fail(`tsc found type errors:\n${e.stdout}${e.stderr}`);
  }
});
