// Index speed, wasm against native, on the same tree: the npm package (core compiled to wasm, in Node) and
// `acr index` (release build). Prints figures; asserts nothing. Usage: node tests/bench/index.mjs [TREE ...]
// Default tree: the largest one in ../shared/replay/search. Python and Java files are read (e.g. a JDK's src.zip
// unpacked, for Java). Run by `make bench`.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT, loadPackage } from "../node/harness.mjs";

const RUNS = 5;

function largestReplayTree() {
  const base = join(ROOT, "..", "shared", "replay", "search", "acr-run-1");
  if (!existsSync(base)) return null;
  const size = (dir) => readdirSync(dir, { withFileTypes: true })
    .reduce((n, e) => n + (e.isDirectory() ? size(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
  return readdirSync(base).map((t) => join(base, t, "repo")).sort((a, b) => size(b) - size(a))[0];
}

/** The tree's source files in the languages the index reads (Python, and Java in the package). */
function sourceFiles(root, dir = root, out = {}) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceFiles(root, p, out);
    else if (e.name.endsWith(".py") || e.name.endsWith(".java")) out[relative(root, p)] = readFileSync(p, "utf8");
  }
  return out;
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const trees = process.argv.slice(2);
if (trees.length === 0) {
  const t = largestReplayTree();
  if (!t) {
    console.log("skipped: ../shared/replay is absent and no tree was given");
    process.exit(0);
  }
  trees.push(t);
}
const acr = await loadPackage();
const native = join(ROOT, "target", "release", "acr");
for (const tree of trees) {
  const files = sourceFiles(tree);
  const wasmMs = [];
  let stats;
  for (let i = 0; i < RUNS; i++) {
    const repo = acr.Repo.fromFiles(files);
    const t0 = performance.now();
    stats = repo.index();
    wasmMs.push(performance.now() - t0);
    repo.free?.();
  }
  const nativeMs = [];
  for (let i = 0; i < RUNS; i++) {
    const out = JSON.parse(execFileSync(native, ["index", "--json", tree], { encoding: "utf8" }));
    nativeMs.push(out.milliseconds);
  }
  const mb = stats.bytes / 1e6;
  const [w, n] = [median(wasmMs), median(nativeMs)];
  console.log(`${tree}`);
  console.log(`  ${stats.files} files, ${mb.toFixed(2)} MB, ${stats.classes} classes, ${stats.methods} methods, ${stats.functions} functions`);
  console.log(`  native index: ${n.toFixed(1)} ms (${(mb / (n / 1000)).toFixed(1)} MB/s), median of ${RUNS}`);
  console.log(`  wasm index (Node ${process.version}): ${w.toFixed(1)} ms (${(mb / (w / 1000)).toFixed(1)} MB/s), median of ${RUNS}`);
  console.log(`  wasm / native: ${(w / n).toFixed(2)}x`);
}
