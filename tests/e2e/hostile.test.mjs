// Hostile repositories in the playground (headless Chromium): a zip built to exhaust the index's memory, names
// that could forge diff headers, an archive larger than the tab holds, and a trap in the core.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { OUT, servedPlayground } from "./harness.mjs";
import { forgedPathZip, longClassNameZip, oversizedZip } from "../hostile/inputs.mjs";

const playground = servedPlayground();

function zipFile(name, bytes) {
  const path = join(OUT, name);
  writeFileSync(path, bytes);
  return path;
}

// Regression: this 7 KB zip (a 100,000-character class name, 30,000 methods) trapped the wasm and left
// "Indexing ...: 0 / 2 files" on the page for good.
test("a zip built to blow up the index loads and is counted", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFile("long-class-name.zip", longClassNameZip()));
  await page.waitForSelector("#stats", { timeout: 60000 });
  assert.equal(await page.textContent("#stat-methods"), "30000");
  assert.equal(await page.textContent("#stat-classes"), "1");
  assert.deepEqual(errors, []);
});

// Regression: names holding newlines (a forged `--- a/setup.py` header) and backslashes were loaded.
test("names with control characters or backslashes are skipped and shown escaped", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFile("forged.zip", forgedPathZip()));
  await page.waitForSelector("#stats", { timeout: 30000 });
  assert.equal(await page.textContent("#stat-files"), "1");
  const skipped = await page.textContent("#skipped");
  assert.match(skipped, /2 files skipped/);
  assert.match(skipped, /x\\n--- a\/setup\.py\\n\+\+\+ b\/setup\.py.*control character/);
  assert.match(skipped, /sub\\evil\.py.*backslash/);
  assert.deepEqual(errors, []);
});

// Regression: the load budget (1 GiB) was larger than the tab could hold, and a large archive trapped midway.
test("an archive that unpacks to more than the tab holds is refused before unpacking", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFile("oversized.zip", oversizedZip()));
  const message = await page.textContent("#error", { timeout: 30000 });
  assert.match(message, /unpacks to 1200 MiB, and the tab holds at most \d+ MiB/);
  assert.deepEqual(errors, []);
});

// Regression: a trap during indexing left the page dead. The test fault `#acr-test-trap=index` traps once.
test("a trap in the core shows an error, restarts the core and the repository loads again", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.fill("#issue", "kept across the restart");
  await page.evaluate(() => { location.hash = "acr-test-trap=index"; });
  await page.click("#demo-button");
  await page.waitForSelector("#core-restarted", { timeout: 20000 });
  assert.match(await page.textContent("#core-restarted"), /stopped \(RuntimeError: unreachable\) and was restarted/);
  assert.equal(await page.evaluate(() => window.acrRestarts()), 1);
  assert.equal(await page.inputValue("#issue"), "kept across the restart");
  await page.click("#demo-button");
  await page.waitForSelector("#stats", { timeout: 20000 });
  assert.ok(Number(await page.textContent("#stat-files")) > 0);
  await page.screenshot({ path: join(OUT, "restarted.png") });
  assert.deepEqual(errors, []);
});
