// How long the largest repository of the replay corpus takes from drop to a ready index, in the browser and
// natively. Prints the figures; asserts only that both agree on the counts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { ROOT, ACR, zipDir, servedPlayground } from "./harness.mjs";

const CORPUS = join(ROOT, "..", "shared", "replay", "search", "acr-run-1");

/** Total bytes of the files under a folder. */
function bytes(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? bytes(p) : statSync(p).size;
  }
  return n;
}

const playground = servedPlayground();

test("drop to ready index for the largest replay repository (figures printed)", async (t) => {
  if (!existsSync(CORPUS)) return t.skip(`no replay corpus at ${CORPUS}`);
  const [largest] = readdirSync(CORPUS)
    .map((task) => ({ task, dir: join(CORPUS, task, "repo") }))
    .filter((c) => existsSync(c.dir))
    .map((c) => ({ ...c, bytes: bytes(c.dir) }))
    .sort((a, b) => b.bytes - a.bytes);
  const zip = zipDir(largest.dir, largest.task);
  const zipBytes = readFileSync(zip);

  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.waitForSelector("#zip-input", { state: "attached" });
  // Drop the zip on the drop zone, as a user would.
  const transfer = await page.evaluateHandle(({ b64, name }) => {
    const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([raw], name, { type: "application/zip" }));
    return dt;
  }, { b64: zipBytes.toString("base64"), name: `${largest.task}.zip` });
  const started = Date.now();
  await page.dispatchEvent(".dropzone", "drop", { dataTransfer: transfer });
  await page.waitForSelector("#stats", { timeout: 180000 });
  const wall = Date.now() - started;
  const inPage = Number(await page.getAttribute("#status", "data-ms"));
  const indexing = Number(await page.getAttribute("#status", "data-index-ms"));
  const files = Number(await page.textContent("#stat-files"));
  const classes = Number(await page.textContent("#stat-classes"));

  const nativeStarted = process.hrtime.bigint();
  const native = JSON.parse(execFileSync(ACR, ["index", "--json", largest.dir], { encoding: "utf8" }));
  const nativeWall = Number(process.hrtime.bigint() - nativeStarted) / 1e6;
  console.log(
    `[timing] ${largest.task}: ${files} files, ${(largest.bytes / 1e6).toFixed(1)} MB of Python, zip ${(zipBytes.length / 1e6).toFixed(1)} MB\n` +
    `[timing] headless Chromium, drop to ready index: ${inPage.toFixed(0)} ms in the page, of which indexing ` +
    `${indexing.toFixed(0)} ms (${wall} ms seen by the test)\n` +
    `[timing] native ${ACR} index: ${native.milliseconds} ms indexing, ${nativeWall.toFixed(0)} ms for the whole command`,
  );
  assert.equal(files, native.files);
  assert.equal(classes, native.classes);
  assert.deepEqual(errors, []);
});
