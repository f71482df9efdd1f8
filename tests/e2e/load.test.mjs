// The playground loads a repository zip in a real browser and reports the same counts as `acr index`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { OUT, zipFixture, nativeIndex, servedPlayground } from "./harness.mjs";

const playground = servedPlayground();

const stat = (page, id) => page.textContent(`#stat-${id}`).then(Number);

test("an uploaded zip is unpacked, parsed and counted in the browser", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFixture("minirepo"));
  await page.waitForSelector("#stats", { timeout: 30000 });
  const got = {
    files: await stat(page, "files"),
    classes: await stat(page, "classes"),
    methods: await stat(page, "methods"),
    functions: await stat(page, "functions"),
    with_errors: await stat(page, "errors"),
  };
  // Written for the fixture: 3 non-test sources; Base, Order, Survivor; describe, __init__, total, refresh,
  // stamp (nested in a method), method; make_order, fine, broken (recovered from the broken file).
  assert.deepEqual(got, { files: 3, classes: 3, methods: 6, functions: 3, with_errors: 1 });
  const native = nativeIndex("minirepo");
  assert.deepEqual(got, {
    files: native.files, classes: native.classes, methods: native.methods,
    functions: native.functions, with_errors: native.with_errors,
  });
  assert.equal(await page.getAttribute("#progress", "value"), String(got.files));
  assert.match(await page.textContent("#parse-errors"), /shop\/broken\.py/);
  await page.click("#file-tree summary");
  await page.click("#file-tree button.tree-folder:has-text('shop')");
  await page.screenshot({ path: join(OUT, "load.png") });
  assert.deepEqual(errors, []);
});

test("a corrupt zip gives a clear error, not a blank page", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  const bad = join(OUT, "corrupt.zip");
  writeFileSync(bad, Buffer.from("PK\u0003\u0004 this is not really a zip file"));
  await page.setInputFiles("#zip-input", bad);
  const message = await page.textContent("#error", { timeout: 10000 });
  assert.match(message, /corrupt\.zip: not a readable zip archive/);
  assert.deepEqual(errors, []);
});

test("the bundled demo repository loads with no upload", async () => {
  const { page } = playground.browser;
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  assert.equal(await stat(page, "files"), 4);
  assert.equal(await stat(page, "classes"), 4); // Item, Discount, BulkDiscount, Cart
});
