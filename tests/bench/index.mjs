// Index speed, wasm against native, on the same tree: the npm package (core compiled to wasm, in Node, one thread) and
// `acr index` (release build), on every core and pinned to one core (`taskset -c 0`, where it exists), so that the
// last ratio compares one core with one core. Runs alternate between the three, as this machine's speed drifts.
// Prints figures; asserts nothing. Usage: node tests/bench/index.mjs [TREE ...]
// Default tree: the largest one in ../shared/replay/search. Python and Java files are read (e.g. a JDK's src.zip
// unpacked, for Java). Run by `make bench`.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT, loadPackage } from "../node/harness.mjs";

const RUNS = 7;

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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
const hasTaskset = spawnSync("taskset", ["-c", "0", "true"]).status === 0;
/** `acr index` on `tree`: its index time in ms, on every core or pinned to one. */
function nativeIndex(tree, oneCore) {
  const [cmd, args] = oneCore ? ["taskset", ["-c", "0", native]] : [native, []];
  const out = execFileSync(cmd, [...args, "index", "--json", tree], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return JSON.parse(out).milliseconds;
}
for (const tree of trees) {
  const files = sourceFiles(tree);
  const [wasmMs, nativeMs, oneCoreMs] = [[], [], []];
  let stats;
  for (let i = 0; i < RUNS; i++) {
    const repo = acr.Repo.fromFiles(files);
    const t0 = performance.now();
    stats = repo.index();
    wasmMs.push(performance.now() - t0);
    repo.free?.();
    nativeMs.push(nativeIndex(tree, false));
    if (hasTaskset) oneCoreMs.push(nativeIndex(tree, true));
  }
  const mb = stats.bytes / 1e6;
  const [w, n] = [median(wasmMs), median(nativeMs)];
  const rate = (ms) => `${ms.toFixed(1)} ms (${(mb / (ms / 1000)).toFixed(1)} MB/s)`;
  console.log(`${tree}`);
  console.log(`  ${stats.files} files, ${mb.toFixed(2)} MB, ${stats.classes} classes, ${stats.methods} methods, ${stats.functions} functions`);
  console.log(`  native index: ${rate(n)}, median of ${RUNS}`);
  console.log(`  wasm index (Node ${process.version}, one thread): ${rate(w)}, median of ${RUNS}`);
  console.log(`  wasm / native: ${(w / n).toFixed(2)}x`);
  if (hasTaskset) {
    // Each run's own ratio, so that a drift between runs cancels out.
    const perRun = wasmMs.map((x, i) => x / oneCoreMs[i]);
    console.log(`  native index on one core: ${rate(median(oneCoreMs))}, median of ${RUNS}`);
    console.log(`  wasm / native, one core each: ${median(perRun).toFixed(2)}x (median of each run's ratio; ` +
      `${Math.min(...perRun).toFixed(2)}-${Math.max(...perRun).toFixed(2)})`);
  }
}
