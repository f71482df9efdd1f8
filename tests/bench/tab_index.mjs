// Large repositories in the tab: drop-to-ready in headless Chromium (the worker pool), then the same after a reload
// (the index cache), against `acr index` natively on the same tree, with the page's wasm memory. The zip is dropped
// once the page has warmed its code up (web/src/warm.rs) and two seconds more, as a user picking a file would. Each round runs
// native, first load and reload one after another, so that a machine whose speed drifts (a shared VM) slows all
// three alike; the figures are medians over the rounds, and the ratio is the median of each round's own ratio.
// Prints figures; asserts nothing. Usage: node tests/bench/tab_index.mjs [--rounds N] [--drop-after MS] [TREE ...]
// (the zip is dropped MS after the page's warm-up, 2000 by default; 0 drops it as soon as the page loaded); by default the
// sympy and Django trees that tools/bench_acr_index.py downloads into target/bench-corpora, 3 rounds. Run by
// `make bench` after it.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ACR, ROOT, openBrowser, serveDist, zipDir } from "../e2e/harness.mjs";

function defaultTrees() {
  const base = join(ROOT, "target", "bench-corpora");
  return ["sympy-1.12", "Django-5.0.6"]
    .map((name) => join(base, name))
    .filter(existsSync)
    .map((dir) => join(dir, readdirSync(dir).find((e) => statSync(join(dir, e)).isDirectory())));
}

const args = process.argv.slice(2);
let rounds = 3;
let dropAfter = 2000;
for (let at = args.indexOf("--rounds"); at >= 0; at = -1) rounds = Number(args.splice(at, 2)[1]);
for (let at = args.indexOf("--drop-after"); at >= 0; at = -1) dropAfter = Number(args.splice(at, 2)[1]);
const trees = args.length ? args : defaultTrees();
if (trees.length === 0) {
  console.log("skipped: no tree given and target/bench-corpora is empty (run python3 tools/bench_acr_index.py first)");
  process.exit(0);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => x.toFixed(0);

/** `acr index` natively: index and read times (ms) and the number of files. */
function native(tree) {
  const out = JSON.parse(execFileSync(ACR.replace("debug", "release"), ["index", "--json", tree], { encoding: "utf8" }));
  return { index: out.milliseconds, read: out.load_milliseconds, files: out.files };
}

/** The status line's figures once the load is ready and once every file is unpacked. */
async function statusFigures(page, ready) {
  const status = page.locator(`#status${ready}`);
  await status.waitFor({ timeout: 600000 });
  const ms = Number(await status.getAttribute("data-ms"));
  const figures = { ms, index: Number(await status.getAttribute("data-index-ms")),
    origin: await status.getAttribute("data-origin"), phases: await status.getAttribute("data-phases") };
  await page.locator("#status[data-complete-ms]").waitFor({ timeout: 600000 });
  figures.complete = Number(await page.locator("#status").getAttribute("data-complete-ms"));
  return figures;
}

/** One drop of the zip into a new browser, then a reload of the page. */
async function tab(url, zip) {
  const browser = await openBrowser();
  const { page } = browser;
  await page.goto(url);
  // The page warms its code up while idle (web/src/warm.rs) and the browser optimises it in the background; a user
  // takes a few seconds to pick a file. `--drop-after 0` drops at once.
  let warm = NaN;
  if (dropAfter > 0) {
    await page.waitForSelector("html[data-warm]", { state: "attached", timeout: 60000 });
    warm = Number(await page.getAttribute("html", "data-warm"));
    await page.waitForTimeout(dropAfter);
  }
  await page.setInputFiles("#zip-input", zip);
  const first = await statusFigures(page, "[data-origin]");
  first.warm = warm;
  first.memory = await page.evaluate(() => window.acrMemoryBytes());
  // Wait for the cache to be written (after the load, in the background), then reload.
  await page.waitForFunction(() => window.__acrIndexCache.last().then((l) => l !== undefined), null, { timeout: 120000 });
  await page.waitForFunction(() => window.__acrIndexCache.usage().then((u) => u.entries > 0), null, { timeout: 120000 });
  await page.reload();
  // Timed from the start of the navigation (the page's clock starts there).
  const reload = await statusFigures(page, "[data-restored='true']");
  await browser.ctx.close();
  return { first, reload };
}

const server = await serveDist();
const mib = (b) => (b / 2 ** 20).toFixed(0);
console.log(`medians of ${rounds} rounds (native, first load and reload in turn each round); ms; `
  + (dropAfter > 0 ? `zip dropped ${dropAfter} ms after the page's warm-up` : "zip dropped as soon as the page loaded"));
console.log("tree              zip MiB  files  native (read)  first load (all files)  ratio  reload (all files)  wasm MiB");
for (const tree of trees) {
  const zip = zipDir(tree, "bench");
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const n = native(tree);
    const t = await tab(server.url, zip);
    if (t.reload.origin !== "Cache") console.log(`  round ${round + 1}: the reload did not come from the cache!`);
    runs.push({ native: n, ...t, ratio: t.first.ms / (n.index + n.read) });
  }
  const m = (f) => median(runs.map(f));
  const name = tree.split("/").at(-1).padEnd(16);
  console.log(`${name}  ${mib(statSync(zip).size).padStart(7)}  ${String(runs[0].native.files).padStart(5)}  `
    + `${ms(m((r) => r.native.index)).padStart(6)} (${ms(m((r) => r.native.read))})`.padEnd(15)
    + `  ${ms(m((r) => r.first.ms)).padStart(10)} (${ms(m((r) => r.first.complete))})`.padEnd(24)
    + `  ${m((r) => r.ratio).toFixed(2).padStart(4)}x`
    + `  ${ms(m((r) => r.reload.ms)).padStart(6)} (${ms(m((r) => r.reload.complete))})`.padEnd(20)
    + `  ${mib(m((r) => r.first.memory)).padStart(8)}`);
  for (const [i, r] of runs.entries()) {
    console.log(`  round ${i + 1}: native ${ms(r.native.index)} + ${ms(r.native.read)}; warm-up ${ms(r.first.warm)}; first load ${ms(r.first.ms)}: `
      + `${r.first.phases} (${r.first.origin}); reload ${ms(r.reload.ms)}: ${r.reload.phases}`);
  }
}
server.close();
