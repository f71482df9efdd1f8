// A run against an OpenAI-compatible endpoint: the page talks chat completions over fetch to a local scripted
// server (`acr serve-model`), over a repository uploaded as a zip.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, OUT, serveDist, openBrowser, zipFixture, serveModel, acrHas, useRunner } from "./harness.mjs";

const SCRIPTS = join(ROOT, "tests", "fixtures", "scripts");
let server, browser, model;
before(async () => {
  server = await serveDist();
  browser = await openBrowser();
  if (acrHas("serve-model")) model = await serveModel(join(SCRIPTS, "minirepo.json"));
});
after(async () => {
  await browser?.ctx.close();
  server?.close();
  model?.close();
});

test("a run over an uploaded zip with a chat-completions endpoint ends with the expected diff", async (t) => {
  if (!model) return t.skip("this acr has no serve-model subcommand");
  const { page, errors } = browser;
  const seen = [];
  page.on("request", (r) => seen.push(`${r.method()} ${r.url()}`));
  await page.goto(server.url);
  await page.setInputFiles("#zip-input", zipFixture("minirepo"));
  await page.waitForSelector("#stats");
  await page.selectOption("#provider", "custom");
  await page.fill("#base-url", model.url);
  await page.fill("#model-name", "scripted");
  await useRunner(page, "none"); // this script has no reproducer; executions are tested in tab-python.test.mjs
  await page.click("#test-connection");
  await page.waitForSelector("#conn-status.ok");
  assert.match(await page.textContent("#conn-status"), /Connected: scripted answered/);
  await page.fill("#issue", readFileSync(join(SCRIPTS, "minirepo-issue.md"), "utf8"));
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 60000 });
  assert.match(await page.textContent("#run-status"), /an applicable patch/);
  const diff = await page.textContent("#diff");
  assert.ok(diff.includes("self.lines = [] if lines is None else lines"), diff);
  assert.ok(diff.includes("shop/orders.py"));
  assert.equal(await page.textContent("#count-calls"), "4");
  // Four model calls and the connection test, all to the endpoint; the location was found through it.
  const posts = seen.filter((s) => s.startsWith(`POST ${model.url}/chat/completions`));
  assert.equal(posts.length, 5, seen.join("\n"));
  await page.click("#tab-transcript");
  assert.match(await page.textContent("#transcript .ev.locations"), /shop\/orders\.py · Order · __init__/);
  await page.screenshot({ path: join(OUT, "endpoint-run.png") });
  assert.deepEqual(errors, []);
});
