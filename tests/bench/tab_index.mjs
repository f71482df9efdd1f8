// Large repositories in the tab: drop-to-ready in headless Chromium (the worker pool), then the same after a reload
// (the index cache), against `acr index` natively on the same tree, with the page's wasm memory. Prints figures;
// asserts nothing. Usage: node tests/bench/tab_index.mjs [TREE ...]; by default the sympy and Django trees that
// tools/bench_acr_index.py downloads into target/bench-corpora. Run by `make bench` after it.
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

const trees = process.argv.slice(2).length ? process.argv.slice(2) : defaultTrees();
if (trees.length === 0) {
  console.log("skipped: no tree given and target/bench-corpora is empty (run python3 tools/bench_acr_index.py first)");
  process.exit(0);
}

const server = await serveDist();
const mib = (b) => (b / 2 ** 20).toFixed(0);
console.log("tree              zip MiB  files  first load ms (index ms, workers)  reload ms  native ms (read)  wasm MiB");
for (const tree of trees) {
  const zip = zipDir(tree, "bench");
  const native = JSON.parse(execFileSync(ACR.replace("debug", "release"), ["index", "--json", tree], { encoding: "utf8" }));
  const browser = await openBrowser();
  const { page } = browser;
  await page.goto(server.url);
  await page.setInputFiles("#zip-input", zip);
  const status = page.locator("#status[data-origin]");
  await status.waitFor({ timeout: 600000 });
  const first = { ms: Number(await status.getAttribute("data-ms")), index: Number(await status.getAttribute("data-index-ms")),
    origin: await status.getAttribute("data-origin"), phases: await status.getAttribute("data-phases") };
  const memory = await page.evaluate(() => window.acrMemoryBytes());
  // Wait for the cache to be written (after ready, in the background), then reload.
  await page.waitForFunction(() => window.__acrIndexCache.last().then((l) => l !== undefined), null, { timeout: 120000 });
  await page.waitForFunction(() => window.__acrIndexCache.usage().then((u) => u.entries > 0), null, { timeout: 120000 });
  await page.reload();
  await page.locator("#status[data-restored='true']").waitFor({ timeout: 600000 });
  // From the start of the navigation to the restored index.
  const reload = await page.evaluate(() => performance.now());
  const reloadOrigin = await page.locator("#status").getAttribute("data-origin");
  const reloadPhases = await page.locator("#status").getAttribute("data-phases");
  await browser.ctx.close();
  const name = tree.split("/").at(-1).padEnd(16);
  console.log(`${name}  ${mib(statSync(zip).size).padStart(7)}  ${String(native.files).padStart(5)}  `
    + `${first.ms.toFixed(0).padStart(13)} (${first.index.toFixed(0)}, ${first.origin})`.padEnd(35)
    + `  ${reload.toFixed(0).padStart(9)}${reloadOrigin === "Cache" ? "" : " (not from the cache!)"}`
    + `  ${native.milliseconds.toFixed(0).padStart(9)} (${native.load_milliseconds.toFixed(0)})`
    + `  ${mib(memory).padStart(8)}`);
  console.log(`  first load: ${first.phases}; reload: ${reloadPhases} (ms)`);
}
server.close();
