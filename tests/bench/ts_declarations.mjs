// How well the index's counts of JavaScript and TypeScript definitions (`acr index --json`: classes, methods,
// functions) agree with the TypeScript compiler's own reading of the same files (the `typescript` package's parser,
// `ts.createSourceFile`, walked here), on real npm packages found on this machine. The issue's target is agreement
// within 1% on each count. Prints a table and the definitions one side has and the other not; asserts nothing.
//
// Usage: node tests/bench/ts_declarations.mjs [--all] [--dump FILE.json] [PACKAGE_DIR ...]
//   (on a busy machine: nice -n 19 node tests/bench/ts_declarations.mjs)
// Default packages: semver, @npmcli/arborist and minimatch from npm's own node_modules (`npm root -g`), unenv and
// rolldown from tests/node_modules; missing ones are skipped. --all lists every difference (default: 8 per kind
// and package); --dump writes both sides' definitions per file. The binary is target/debug/acr (ACR_BIN overrides).
//
// Each package's non-test sources (.js .mjs .cjs .jsx .ts .mts .cts .tsx, declaration files included; test files
// as the index has them: `*.test.*`, `*.spec.*`, files under `test/`, `tests/`, `__tests__/`; no `node_modules`;
// left out: minified files, `*.min.*` or lines other than imports and exports over 300 characters on average, and
// files over acr's 4 MiB limit) are copied to a scratch folder, so that `acr index` reads exactly the files the
// walker reads. Definitions are then compared one by one: the index's are read through `acr search --batch`
// (`search_class_in_file` and `search_method_in_file` for every name the walker found in a file; where totals or
// names differ, also for every name-like token of the files whose single-file `acr index` counts differ, so that
// definitions only the index has show up) and paired with the walker's by file, name and line. A name with more
// definitions in a file than a search lists (100) is compared by count.
//
// The walker counts what the index's rules count (core/src/grammar.rs, JAVASCRIPT and TYPESCRIPT: class_kinds,
// function_kinds, bindings, function_values), in the compiler's node kinds:
//   class     ClassDeclaration (abstract and `declare` ones too), InterfaceDeclaration, EnumDeclaration; with a name
//             (`export default class {}` has none). A ClassExpression (tree-sitter's `class` kind) with a name of its
//             own (`cls => class Builder extends cls {}`; `const A = class B {}` is B alone); one without, not
//             parenthesised nor cast, bound as a function value is (below), named by its binding
//             (`const Impl = class {}`, `key: class {}`, `field = class {}`). Any other ClassExpression is not one.
//   function  FunctionDeclaration with a name, with a body or not (overloads and `declare function`: tree-sitter's
//             function_signature; generators; `export default function f`); MethodDeclaration, GetAccessor,
//             SetAccessor and Constructor (named by its keyword, or its string: `'constructor'() {}`) in a class or
//             an object literal, with or without a body (overloads, abstract members), whatever their name (`#p`,
//             `'s'`, `[Symbol.iterator]`, `1`); MethodSignature anywhere (interfaces, `declare class` members, type
//             literals: tree-sitter's method_signature); and a function value (ArrowFunction, FunctionExpression,
//             generators), not parenthesised nor cast, bound by a VariableDeclaration with an Identifier name, or by
//             a PropertyAssignment or PropertyDeclaration (class field) with an Identifier or PrivateIdentifier name.
//   method    such a function with a class (as above) around it, at any depth (a helper inside a method is a
//             method of the class, as ACR's Python index has it); otherwise a function.
// Tallied apart, per package: what neither side counts (class expressions with no name of their own and no binding
// as above, e.g. `exports.A = class {}`, `mixin(class {})`, `export default class {}`; function values assigned to
// a property or a variable, `exports.f = function`, `A.prototype.m = () => ...`, call and construct signatures,
// unnamed default exports, functions and classes bound to string, numeric or computed keys), and what both count
// though it is arguably no definition (members of such unnamed, unbound class expressions, as functions or as
// methods of the class around them; method signatures of type literals).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync }
  from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ts = createRequire(import.meta.url)(join(ROOT, "tests", "node_modules", "typescript-compiler-api"));
const ACR = process.env.ACR_BIN ?? join(ROOT, "target", "debug", "acr");
const EXTENSIONS = ["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"];
const SHOWN = 8;
/** The largest file `acr` reads (core/src/repo.rs, `Limits::max_file_bytes`). */
const MAX_FILE_BYTES = 4 << 20;

const argv = process.argv.slice(2);
const showAll = argv.includes("--all");
const dumpAt = argv.indexOf("--dump");
const dumpFile = dumpAt >= 0 ? argv[dumpAt + 1] : null;
const dirs = argv.filter((a, i) => !a.startsWith("--") && (dumpAt < 0 || i !== dumpAt + 1));

function defaultPackages() {
  let npmRoot = null;
  try {
    npmRoot = execFileSync("npm", ["root", "-g"], { encoding: "utf8" }).trim();
  } catch {
    // npm absent: only the packages of tests/node_modules.
  }
  const bundled = npmRoot ? join(npmRoot, "npm", "node_modules") : null;
  const local = join(ROOT, "tests", "node_modules");
  return [
    bundled && join(bundled, "semver"),
    bundled && join(bundled, "@npmcli", "arborist"),
    bundled && join(bundled, "minimatch"),
    join(local, "unenv"),
    join(local, "rolldown"),
  ].filter((d) => d && existsSync(join(d, "package.json")));
}

// --- Which files: the index's sources, without minified bundles -------------------------------------------------

/** The index's test-file rule (core/src/language/javascript.rs, `script_test_file`). */
function isTestFile(path) {
  const parts = path.split("/");
  const name = parts.pop();
  return parts.some((p) => p === "test" || p === "tests" || p === "__tests__")
    || name.split(".").slice(1).some((p) => p === "test" || p === "spec");
}

function extensionOf(path) {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : "";
}

/** The package's source files (relative paths) and the minified ones left out. */
function sourceFiles(root) {
  const files = [];
  const minified = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && !e.name.startsWith(".")) walk(p);
        continue;
      }
      const rel = relative(root, p).split("\\").join("/");
      if (!e.isFile() || !EXTENSIONS.includes(extensionOf(rel)) || isTestFile(rel)) continue;
      if (statSync(p).size > MAX_FILE_BYTES) {
        minified.push(`${rel} (over 4 MiB)`);
        continue;
      }
      const lines = readFileSync(p, "utf8").split("\n");
      const code = lines.filter((l) => !/^\s*(import|export)\b/.test(l));
      const long = code.length > 0 && code.reduce((n, l) => n + l.length, 0) / code.length > 300;
      if (e.name.includes(".min.") || long) minified.push(rel);
      else files.push(rel);
    }
  };
  walk(root);
  return { files, minified };
}

// --- The TypeScript compiler's side ------------------------------------------------------------------------------

const K = ts.SyntaxKind;
const FUNCTION_VALUES = new Set([K.ArrowFunction, K.FunctionExpression]);
const BOUND_NAMES = new Set([K.Identifier, K.PrivateIdentifier]);
const NAME_KINDS = { [K.StringLiteral]: "string", [K.NumericLiteral]: "numeric", [K.ComputedPropertyName]: "computed" };
const CLASS_KINDS = new Set([K.ClassDeclaration, K.InterfaceDeclaration, K.EnumDeclaration]);
const BINDINGS = new Set([K.VariableDeclaration, K.PropertyAssignment, K.PropertyDeclaration]);
/** A class expression with no name of its own, the value of a binding (`const Impl = class {}`). */
const isBoundClass = (node) => BINDINGS.has(node.kind) && node.initializer?.kind === K.ClassExpression
  && !node.initializer.name;
const FUNCTION_KINDS = new Set([
  K.FunctionDeclaration, K.MethodDeclaration, K.GetAccessor, K.SetAccessor, K.Constructor, K.MethodSignature,
]);

function scriptKind(path) {
  switch (extensionOf(path)) {
    case "ts": case "mts": case "cts": return ts.ScriptKind.TS;
    case "tsx": return ts.ScriptKind.TSX;
    case "jsx": return ts.ScriptKind.JSX;
    default: return ts.ScriptKind.JS;
  }
}

/** The walker's definitions of one file ({kind, name, cls, line}); adds to `outside` what neither side counts
 * (`neither`) and what both count though it is arguably no definition (`counted`). */
function tsDefinitions(path, text, outside) {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const defs = [];
  const line = (node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const tally = (what, counted = false) => {
    const t = counted ? outside.counted : outside.neither;
    t[what] = (t[what] ?? 0) + 1;
  };
  const visit = (node, cls) => {
    let inner = cls;
    let name = null;
    if (CLASS_KINDS.has(node.kind)) {
      if (node.name) {
        name = node.name.getText(sf);
        defs.push({ kind: "class", name, cls, line: line(node) });
        inner = name;
      } else tally("unnamed default class");
    } else if (FUNCTION_KINDS.has(node.kind)) {
      // A constructor's name is its keyword or a string (`'constructor'() {}` is one too).
      if (node.kind === K.Constructor) {
        name = node.getChildren(sf).find((c) => c.kind === K.ConstructorKeyword || c.kind === K.StringLiteral)
          ?.getText(sf) ?? "constructor";
      }
      else if (node.name) name = node.name.getText(sf);
      else tally("unnamed default function");
    } else if (BINDINGS.has(node.kind) && node.initializer && FUNCTION_VALUES.has(node.initializer.kind)) {
      if (BOUND_NAMES.has(node.name.kind)) name = node.name.getText(sf);
      else tally(`function bound to a ${NAME_KINDS[node.name.kind] ?? "pattern"} name`);
    } else if (isBoundClass(node)) {
      // `const Impl = class {}`: a class named by its binding, around its members.
      if (BOUND_NAMES.has(node.name.kind)) {
        const bound = node.name.getText(sf);
        defs.push({ kind: "class", name: bound, cls, line: line(node) });
        inner = bound;
      } else tally(`class bound to a ${NAME_KINDS[node.name.kind] ?? "pattern"} name`);
    } else if (node.kind === K.ClassExpression) {
      if (node.name) {
        // `cls => class Builder extends cls {}`, and `const A = class B {}` (B, not A).
        const own = node.name.getText(sf);
        defs.push({ kind: "class", name: own, cls, line: line(node) });
        inner = own;
      } else if (!isBoundClass(node.parent) || !BOUND_NAMES.has(node.parent.name.kind)) {
        const p = node.parent;
        if (p.kind === K.BinaryExpression && p.operatorToken.kind === K.EqualsToken && p.right === node) {
          tally(`class assigned to a ${p.left.kind === K.Identifier ? "variable" : "property"}`);
        } else if (!isBoundClass(p)) tally("unnamed, unbound class expression (argument, default export, ...)");
        // Its members are functions on both sides (methods of the class around it, if any).
        for (const m of node.members) {
          if (FUNCTION_KINDS.has(m.kind)) {
            tally(`unnamed, unbound class-expression member as a ${cls === null ? "function" : "method"}`, true);
          }
        }
      }
    } else if (node.kind === K.BinaryExpression && node.operatorToken.kind === K.EqualsToken
      && FUNCTION_VALUES.has(node.right.kind)) {
      tally(node.left.kind === K.Identifier ? "function assigned to a variable" : "function assigned to a property");
    } else if (node.kind === K.CallSignature || node.kind === K.ConstructSignature) {
      tally("call or construct signature");
    }
    if (name !== null && !CLASS_KINDS.has(node.kind)) {
      defs.push({ kind: cls === null ? "function" : "method", name, cls, line: line(node) });
    }
    if (node.kind === K.MethodSignature && node.parent.kind === K.TypeLiteral) {
      tally("method signature of a type literal", true);
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(sf, null);
  return defs;
}

// --- The index's side ---------------------------------------------------------------------------------------------

function acr(args) {
  return execFileSync(ACR, args, { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] });
}

const indexCounts = (dir) => JSON.parse(acr(["index", "--json", dir]));

/** The index's definitions named `names[file]` in each file, through one `acr search --batch` run: per file,
 * `defs` ({kind, name, cls, line}) and `capped` ({name, group, count}: names with more definitions in the file than a
 * search lists, `RESULT_CAP` in core/src/search/mod.rs, of which only the count is known). */
function indexDefinitions(dir, names) {
  const calls = [];
  for (const [file, set] of Object.entries(names)) {
    for (const name of set) {
      calls.push({ file, call: { api: "search_class_in_file", args: [name, file] } });
      calls.push({ file, call: { api: "search_method_in_file", args: [name, file] } });
    }
  }
  const batch = join(dir, "..", "calls.jsonl");
  writeFileSync(batch, calls.map((c) => JSON.stringify(c.call)).join("\n") + "\n");
  const out = acr(["search", dir, "--batch", batch]).trim().split("\n");
  const perFile = {};
  out.forEach((lineText, i) => {
    const { file, call } = calls[i];
    const result = JSON.parse(lineText);
    const entry = (perFile[file] ??= { defs: [], capped: [] });
    const isClass = call.api === "search_class_in_file";
    const results = (result.results ?? [])
      .filter((r) => r.file === file && (isClass ? r.class : r.func) === call.args[0]);
    const found = Number(result.output.match(/^Found (\d+) /)?.[1] ?? 0);
    if (result.ok && found > results.length) {
      entry.capped.push({ name: call.args[0], group: isClass ? "class" : "function", count: found });
      return;
    }
    for (const r of results) {
      entry.defs.push({
        kind: isClass ? "class" : r.class === null ? "function" : "method",
        name: call.args[0],
        cls: isClass ? null : r.class,
        line: r.start,
      });
    }
  });
  return perFile;
}

/** Per-kind counts of one file alone in the index. */
function singleFileCounts(file, text) {
  const dir = mkdtempSync(join(tmpdir(), "acr-tsdecl-one-"));
  try {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    writeFileSync(join(dir, file), text);
    const c = indexCounts(dir);
    return { class: c.classes, method: c.methods, function: c.functions };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Name-like tokens of a source: every name the index could have recorded (identifiers, `#names`, quoted keys,
 * computed keys). */
function tokens(text) {
  const out = new Set(text.match(/#?[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_]*/gu) ?? []);
  for (const m of text.matchAll(/'[^'\n]{0,80}'|"[^"\n]{0,80}"|\[[^\]\n]{1,80}\]/g)) out.add(m[0]);
  return out;
}

// --- Comparing ---------------------------------------------------------------------------------------------------

const count = (defs, kind) => defs.filter((d) => d.kind === kind).length;
const NONE = { defs: [], capped: [] };

/** Pairs the two sides' definitions of a file: same name and kind on the same line, then same name and kind on any
 * line, then same name; what is left over is one side's only. Names whose index definitions were only counted
 * (`capped`) are compared by their count. */
function match(walked, { defs: idx, capped }) {
  const group = (d) => (d.kind === "class" ? "class" : "function");
  const countDiffers = [];
  for (const c of capped) {
    const n = walked.filter((d) => d.name === c.name && group(d) === c.group).length;
    if (n !== c.count) countDiffers.push({ name: c.name, group: c.group, walker: n, index: c.count });
  }
  const isCapped = (d) => capped.some((c) => c.name === d.name && c.group === group(d));
  walked = walked.filter((d) => !isCapped(d));
  const left = idx.filter((d) => !isCapped(d));
  const onlyTs = [];
  const kindDiffers = [];
  const take = (pred) => {
    const i = left.findIndex(pred);
    return i < 0 ? null : left.splice(i, 1)[0];
  };
  const pending = [];
  for (const d of walked) {
    if (!take((x) => x.name === d.name && x.kind === d.kind && x.line === d.line)) pending.push(d);
  }
  const pending2 = [];
  for (const d of pending) if (!take((x) => x.name === d.name && x.kind === d.kind)) pending2.push(d);
  for (const d of pending2) {
    const other = take((x) => x.name === d.name);
    if (other) kindDiffers.push({ ts: d, index: other });
    else onlyTs.push(d);
  }
  return { onlyTs, onlyIndex: left, kindDiffers, countDiffers };
}

const pct = (a, b) => (b === 0 ? (a === 0 ? "0.0%" : "n/a") : `${((100 * (a - b)) / b).toFixed(1)}%`);
const pad = (s, n) => String(s).padStart(n);

const packages = dirs.length > 0 ? dirs : defaultPackages();
if (!existsSync(ACR)) {
  console.log(`skipped: ${ACR} is missing (cargo build -p acr-cli, or set ACR_BIN)`);
  process.exit(0);
}
const scratch = mkdtempSync(join(tmpdir(), "acr-tsdecl-"));
const rows = [];
const reports = [];
const dump = {};
try {
  for (const pkgDir of packages) {
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    const label = `${pkg.name}@${pkg.version}`;
    const { files, minified } = sourceFiles(pkgDir);
    const copy = join(scratch, label.replace(/[/@]/g, "_"), "repo");
    const texts = {};
    for (const f of files) {
      mkdirSync(join(copy, dirname(f)), { recursive: true });
      cpSync(join(pkgDir, f), join(copy, f));
      texts[f] = readFileSync(join(pkgDir, f), "utf8");
    }
    const outside = { neither: {}, counted: {} };
    const walker = {};
    for (const f of files) walker[f] = tsDefinitions(f, texts[f], outside);
    const counts = indexCounts(copy);
    const all = Object.values(walker).flat();
    const walked = { class: count(all, "class"), method: count(all, "method"), function: count(all, "function") };
    const idx = { class: counts.classes, method: counts.methods, function: counts.functions };
    rows.push({ label, files: files.length, indexFiles: counts.files, walked, idx, minified: minified.length });

    // The index's definitions by the walker's names, file by file.
    const names = Object.fromEntries(files.map((f) => [f, new Set(walker[f].map((d) => d.name))]));
    let indexed = indexDefinitions(copy, names);
    // Files whose single-file counts differ from the walker's (or that hold a difference already): looked at with
    // every name-like token, so that definitions only the index has are found too.
    const differs = new Set();
    const found = Object.values(indexed).flatMap((e) => e.defs);
    const cappedCount = (group) => Object.values(indexed).flatMap((e) => e.capped).filter((c) => c.group === group)
      .reduce((n, c) => n + c.count, 0);
    const mismatch = count(found, "class") + cappedCount("class") !== idx.class
      || count(found, "method") + count(found, "function") + cappedCount("function") !== idx.method + idx.function
      || files.some((f) => Object.values(match(walker[f], indexed[f] ?? NONE)).some((l) => l.length > 0));
    if (mismatch) {
      for (const f of files) {
        const one = singleFileCounts(f, texts[f]);
        const w = walker[f];
        if (["class", "method", "function"].some((k) => one[k] !== count(w, k))) differs.add(f);
      }
      if (differs.size > 0) {
        const more = indexDefinitions(copy, Object.fromEntries([...differs].map((f) => [f, tokens(texts[f])])));
        indexed = { ...indexed, ...more };
      }
    }
    const diffs = { onlyTs: [], onlyIndex: [], kindDiffers: [], countDiffers: [] };
    for (const f of files) {
      const m = match(walker[f], indexed[f] ?? NONE);
      for (const key of Object.keys(diffs)) diffs[key].push(...m[key].map((d) => ({ file: f, ...d })));
      if (dumpFile) dump[`${label}/${f}`] = { typescript: walker[f], index: indexed[f] ?? NONE };
    }
    reports.push({ label, diffs, outside, differs: differs.size, minified, skipped: counts.skipped ?? [] });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// --- Printing ----------------------------------------------------------------------------------------------------

const KINDS = ["class", "method", "function"];
console.log(`index: ${relative(ROOT, ACR)}; TypeScript ${ts.version} (createSourceFile, ScriptTarget.Latest)`);
console.log("counts: index / TypeScript walker / (index - walker) / walker\n");
const HEADS = { class: "classes", method: "methods", function: "functions" };
console.log(`${"package".padEnd(30)} ${pad("files", 5)}  ${KINDS.map((k) => HEADS[k].padEnd(25)).join("")}`.trimEnd());
const total = { files: 0, walked: { class: 0, method: 0, function: 0 }, idx: { class: 0, method: 0, function: 0 } };
const cell = (idx, walked) => `${pad(idx, 6)} /${pad(walked, 6)} ${pad(pct(idx, walked), 7)}    `;
const row = (label, files, r) =>
  `${label.padEnd(30)} ${pad(files, 5)}  ${KINDS.map((k) => cell(r.idx[k], r.walked[k])).join("")}`.trimEnd();
for (const r of rows) {
  console.log(row(r.label, r.files === r.indexFiles ? r.files : `${r.files}≠${r.indexFiles}`, r));
  total.files += r.files;
  for (const k of KINDS) {
    total.walked[k] += r.walked[k];
    total.idx[k] += r.idx[k];
  }
}
console.log(row("total", total.files, total));
const off = (k) => (100 * Math.abs(total.idx[k] - total.walked[k])) / Math.max(1, total.walked[k]);
const worst = Math.max(...KINDS.map(off));
console.log(`\nlargest difference in the totals: ${worst.toFixed(2)}% (target: within 1%)`);

const show = (d) => `${d.file}:${d.line} ${d.kind} ${d.cls && d.kind === "method" ? `${d.cls}::` : ""}${d.name}`;
for (const r of reports) {
  const { onlyTs, onlyIndex, kindDiffers, countDiffers } = r.diffs;
  console.log(`\n== ${r.label}`);
  if (r.minified.length) console.log(`minified or too large, left out: ${r.minified.join(", ")}`);
  if (r.skipped.length) console.log(`skipped by acr: ${r.skipped.map((s) => s.path).join(", ")}`);
  if (r.differs) console.log(`files whose single-file index counts differ (read token by token): ${r.differs}`);
  const list = (title, items, fmt) => {
    if (items.length === 0) return;
    console.log(`${title}: ${items.length}`);
    for (const d of showAll ? items : items.slice(0, SHOWN)) console.log(`  ${fmt(d)}`);
    if (!showAll && items.length > SHOWN) console.log(`  ... ${items.length - SHOWN} more (--all)`);
  };
  list("only the TypeScript walker has", onlyTs, show);
  list("only the index has", onlyIndex, show);
  list("kind differs (walker -> index)", kindDiffers,
    (p) => `${show({ file: p.file, ...p.ts })} -> ${p.index.kind}${p.index.cls ? ` of ${p.index.cls}` : ""}`
      + ` at ${p.index.line}`);
  list("count differs, for names with more definitions in a file than a search lists", countDiffers,
    (c) => `${c.file} ${c.group === "class" ? "classes" : "functions and methods"} named ${c.name}: `
      + `walker ${c.walker}, index ${c.index}`);
  if (![onlyTs, onlyIndex, kindDiffers, countDiffers].some((l) => l.length)) console.log("no differences");
  const notes = (tallies) =>
    Object.entries(tallies).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ");
  const [neither, counted] = [notes(r.outside.neither), notes(r.outside.counted)];
  if (neither) console.log(`outside the rules (neither side counts them): ${neither}`);
  if (counted) console.log(`counted by both, arguably no definitions: ${counted}`);
}
if (dumpFile) {
  writeFileSync(dumpFile, JSON.stringify(dump, null, 1));
  console.log(`\nper-file definitions of both sides: ${dumpFile}`);
}
