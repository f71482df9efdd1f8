// Large repositories in the playground (headless Chromium): indexing in a pool of Web Workers gives the index the
// native CLI gives, the progress moves while it runs, a load can be cancelled, and the index survives a reload (from
// the IndexedDB cache, nothing parsed again) until the cache is cleared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACR, ROOT, zipDir, servedPlayground } from "./harness.mjs";

const playground = servedPlayground();

/** Bytes of Python under a folder. */
function pythonBytes(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
    const p = join(dir, e.name);
    return n + (e.isDirectory() ? pythonBytes(p) : e.name.endsWith(".py") ? statSync(p).size : 0);
  }, 0);
}

/** A real tree with more than a MiB of Python (so the page uses its workers): the largest replay tree, or else the
 * top-level modules of this machine's Python standard library. */
function realTree() {
  const replay = join(ROOT, "..", "shared", "replay", "search", "acr-run-1");
  if (existsSync(replay)) {
    const trees = readdirSync(replay).map((t) => join(replay, t, "repo")).filter(existsSync);
    const largest = trees.sort((a, b) => pythonBytes(b) - pythonBytes(a))[0];
    if (largest && pythonBytes(largest) > 1 << 20) return largest;
  }
  const stdlib = execFileSync("python3", ["-c", "import os; print(os.path.dirname(os.__file__))"], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "acr-stdlib-"));
  execFileSync("bash", ["-c", `cp "${stdlib}"/*.py "${dir}"/`]);
  return dir;
}

const nativeStats = (dir) => JSON.parse(execFileSync(ACR, ["index", "--json", dir], { encoding: "utf8" }));

async function stats(page) {
  const read = async (id) => Number(await page.textContent(`#stat-${id}`));
  return {
    files: await read("files"), classes: await read("classes"), methods: await read("methods"),
    functions: await read("functions"), with_errors: await read("errors"),
  };
}

const tree = realTree();
const zip = zipDir(tree, "large");

test("a large repository is indexed in workers, as the native CLI indexes it, with progress on the way", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  // The browser profile is new: the cache starts empty.
  assert.equal(await page.evaluate(() => window.__acrIndexCache.usage()).then((u) => u.entries), 0);
  // Every progress value the page shows while indexing.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const p = document.querySelector("#progress");
      if (p?.value) window.__progress.push(p.value);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await page.setInputFiles("#zip-input", zip);
  await page.waitForSelector("#stats", { timeout: 120000 });
  const status = page.locator("#status");
  assert.match(await status.getAttribute("data-origin"), /^Workers\(\d+\)$/);
  const native = nativeStats(tree);
  const web = await stats(page);
  for (const k of Object.keys(web)) assert.equal(web[k], native[k], `${k}: tab ${web[k]}, native ${native[k]}`);
  const progress = await page.evaluate(() => [...new Set(window.__progress)]);
  assert.ok(progress.length >= 2, `the progress bar moved while indexing (values seen: ${progress.join(", ")})`);
  assert.deepEqual(errors, []);
});

test("after a reload the same repository is back from the cache, without parsing", async () => {
  const { page, errors } = playground.browser;
  await page.reload();
  await page.waitForSelector("#stats", { timeout: 60000 });
  const status = page.locator("#status");
  assert.equal(await status.getAttribute("data-restored"), "true");
  assert.equal(await status.getAttribute("data-origin"), "Cache");
  const native = nativeStats(tree);
  assert.equal((await stats(page)).methods, native.methods);
  // Dropping the same zip again also reads the cache.
  await page.setInputFiles("#zip-input", zip);
  await page.waitForSelector("#status[data-origin='Cache'][data-restored='false']", { timeout: 60000 });
  assert.deepEqual(errors, []);
});

test("a corrupt or old-format cache entry is not trusted: the index is parsed again", async () => {
  const { page, errors } = playground.browser;
  const native = nativeStats(tree);
  // What the page stored: a record of the core's binary form ("ACRP", a little-endian format version, the files).
  const stored = await page.evaluate(() => window.__acrIndexCache.last()
    .then((l) => window.__acrIndexCache.get(l.hash)).then((e) => Array.from(e.bytes)));
  assert.deepEqual(stored.slice(0, 4), [..."ACRP"].map((c) => c.charCodeAt(0)));
  const older = [...stored.slice(0, 4), stored[4] - 1, ...stored.slice(5)];
  const bad = { "an older format version": older, "a record cut short": stored.slice(0, -7),
    "bytes that are not a record": [...new TextEncoder().encode("[{\"entry\": tru")] };
  for (const [what, bytes] of Object.entries(bad)) {
    await page.evaluate(async (bytes) => {
      const last = await window.__acrIndexCache.last();
      await window.__acrIndexCache.put(last.hash, new Uint8Array(bytes));
    }, bytes);
    await page.reload();
    await page.waitForSelector("#status[data-restored='true']", { timeout: 120000 });
    assert.match(await page.locator("#status").getAttribute("data-origin"), /^Workers\(\d+\)$/, what);
    assert.equal((await stats(page)).methods, native.methods);
    // The rebuilt entry replaced the bad one.
    await page.waitForFunction((length) => window.__acrIndexCache.last()
      .then(async (l) => (await window.__acrIndexCache.get(l.hash))?.bytes?.byteLength === length), stored.length);
  }
  assert.deepEqual(errors, []);
});

test("a load can be cancelled, and clearing the cache forgets the repository", async () => {
  const { page, errors } = playground.browser;
  await page.click("#index-cache summary");
  await page.click("#clear-index-cache");
  await page.waitForFunction(() => /^0 indexes/.test(document.querySelector("#index-cache-usage")?.textContent ?? ""));
  // The workers' script is held back until Cancel was clicked, so the load is surely still indexing then.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await playground.browser.ctx.route("**/index-worker.mjs", async (route) => {
    await held;
    await route.continue();
  });
  await page.setInputFiles("#zip-input", zip);
  await page.click("#cancel-load", { timeout: 60000 });
  release();
  await page.waitForFunction(() => /was cancelled/.test(document.querySelector("#status")?.textContent ?? ""));
  await playground.browser.ctx.unroute("**/index-worker.mjs");
  // Nothing indexed, so nothing remembered for the next reload.
  assert.equal(await page.evaluate(() => window.__acrIndexCache.last()), undefined);
  assert.deepEqual(errors, []);
});
