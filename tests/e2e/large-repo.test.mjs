// Large repositories in the playground (headless Chromium): indexing in a pool of Web Workers gives the index the
// native CLI gives, the progress moves while it runs, a load can be cancelled, and the index survives a reload (from
// the IndexedDB cache, nothing parsed again) until the cache is cleared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
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
  // A file that is not a source, as every real repository has.
  writeFileSync(join(dir, "NOTES.txt"), "The top-level modules of this machine's Python standard library.\n");
  return dir;
}

/** Files under a folder that a repository keeps: UTF-8 text without NUL, at most 4 MiB (core/src/repo.rs). */
function keptFiles(dir) {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const isText = (bytes) => {
    try {
      utf8.decode(bytes);
      return !bytes.includes(0);
    } catch {
      return false;
    }
  };
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath ?? e.path, e.name)))
    .filter((bytes) => bytes.length <= 4 << 20 && isText(bytes)).length;
}

/** Once every file is unpacked (the sources come first): the number the file tree shows. */
async function allFiles(page) {
  await page.waitForSelector("#status[data-complete-ms]", { timeout: 60000 });
  return Number((await page.textContent("#file-tree summary")).match(/\((\d+)\)/)[1]);
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
  // The files that are not sources follow.
  assert.equal(await allFiles(page), keptFiles(tree));
  assert.ok(keptFiles(tree) > native.files);
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
  // The sources were read back apart; the whole archive follows.
  assert.equal(await allFiles(page), keptFiles(tree));
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

test("a remembered archive whose stored copies are damaged is forgotten, with a clear message", async () => {
  const { page, errors } = playground.browser;
  /** Changes the page's `last` store (web/js/index-cache.mjs) by `change(store)` inside the page. */
  const tamper = (change) => page.evaluate(async (change) => {
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open("acr-index-cache");
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const store = db.transaction("last", "readwrite").objectStore("last");
    const done = new Promise((resolve) => (store.transaction.oncomplete = resolve));
    new Function("store", change)(store);
    await done;
    db.close();
  }, change);
  const cases = {
    "the stored copy of its sources is unreadable":
      "store.get('repository').onsuccess = (e) => store.put({ ...e.target.result, sources: new Uint8Array([80, 75, 1]) }, 'repository')",
    "the stored copy of the archive is missing": "store.delete('archive')",
    "the stored copies of the archive and of its sources differ":
      "store.get('repository').onsuccess = (e) => store.get('archive').onsuccess = (a) => "
      + "store.put({ ...e.target.result, sources: a.target.result.bytes }, 'repository')",
  };
  for (const [message, change] of Object.entries(cases)) {
    // Loaded and remembered again, then damaged.
    await page.setInputFiles("#zip-input", zip);
    await page.waitForSelector("#status[data-complete-ms][data-restored='false']", { timeout: 120000 });
    await page.waitForFunction(() => window.__acrIndexCache.archive().then((a) => a !== undefined));
    await tamper(change);
    await page.reload();
    await page.waitForSelector("#error", { timeout: 60000 });
    assert.match(await page.textContent("#error"), new RegExp(`${message}.*; drop the zip again`), message);
    await page.waitForFunction(() => window.__acrIndexCache.last().then((l) => l === undefined));
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
