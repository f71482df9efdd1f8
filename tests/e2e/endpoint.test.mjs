// A run against an OpenAI-compatible endpoint: the page talks chat completions over fetch to a local scripted
// server (`acr serve-model`), over a repository uploaded as a zip.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, OUT, zipFixture, serveModel, acrHas, useRunner, servedPlayground } from "./harness.mjs";

const SCRIPTS = join(ROOT, "tests", "fixtures", "scripts");
const playground = servedPlayground({
  model: async () => (acrHas("serve-model") ? serveModel(join(SCRIPTS, "minirepo.json")) : undefined),
});

test("a run over an uploaded zip with a chat-completions endpoint ends with the expected diff", async (t) => {
  if (!playground.model) return t.skip("this acr has no serve-model subcommand");
  const { page, errors } = playground.browser;
  const seen = [];
  page.on("request", (r) => seen.push(`${r.method()} ${r.url()}`));
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFixture("minirepo"));
  await page.waitForSelector("#stats");
  await page.selectOption("#provider", "custom");
  await page.fill("#base-url", playground.model.url);
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
  const posts = seen.filter((s) => s.startsWith(`POST ${playground.model.url}/chat/completions`));
  assert.equal(posts.length, 5, seen.join("\n"));
  await page.click("#tab-transcript");
  assert.match(await page.textContent("#transcript .ev.locations"), /shop\/orders\.py · Order · __init__/);
  await page.screenshot({ path: join(OUT, "endpoint-run.png") });
  assert.deepEqual(errors, []);
});

/** A new page with the minirepo zip loaded, set to stream from the endpoint at `url`, the issue filled in. */
async function streamingPage(url) {
  const page = await playground.browser.ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFixture("minirepo"));
  await page.waitForSelector("#stats");
  await page.selectOption("#provider", "custom");
  await page.fill("#base-url", url);
  await page.fill("#model-name", "scripted");
  await page.check("#stream");
  await useRunner(page, "none");
  await page.fill("#issue", readFileSync(join(SCRIPTS, "minirepo-issue.md"), "utf8"));
  return { page, errors };
}

test("streamed answers show in the transcript as they arrive and give the same repair", async (t) => {
  if (!acrHas("serve-model")) return t.skip("this acr has no serve-model subcommand");
  const streamed = await serveModel(join(SCRIPTS, "minirepo.json")); // a fresh script: each server plays it once
  t.after(() => streamed.close());
  const { page, errors } = await streamingPage(streamed.url);
  // Record every answer shown while it was still arriving (the live row is replaced when the answer is complete).
  await page.evaluate(() => {
    window.liveSeen = [];
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n.nodeType === 1 && n.id === "live-answer") window.liveSeen.push(n.textContent);
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 60000 });
  assert.match(await page.textContent("#run-status"), /an applicable patch/);
  assert.ok((await page.textContent("#diff")).includes("self.lines = [] if lines is None else lines"));
  assert.equal(await page.textContent("#count-calls"), "4");
  const live = await page.evaluate(() => window.liveSeen);
  assert.ok(live.length >= 4, `a live row for each answer: ${JSON.stringify(live)}`);
  assert.ok(live.every((text) => text.includes("answering")), JSON.stringify(live));
  assert.equal(await page.locator("#live-answer").count(), 0, "no live row once the run is over");
  await page.click("#tab-transcript");
  const metas = await page.locator("#transcript .ev.model .meta").allTextContents();
  assert.equal(metas.length, 4);
  assert.ok(metas.every((m) => !m.includes("~")), `usage from the final chunk, not estimated: ${metas}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("stop aborts a streamed answer in flight: the server sees the connection close", async (t) => {
  if (!acrHas("serve-model")) return t.skip("this acr has no serve-model subcommand");
  const slow = await serveModel(join(SCRIPTS, "minirepo.json"), ["--event-gap-ms", "300"]);
  t.after(() => slow.close());
  const { page } = await streamingPage(slow.url);
  await page.click("#run-button");
  await page.waitForSelector("#live-answer", { timeout: 20000 });
  const stopped = Date.now();
  await page.click("#stop-button");
  await page.waitForFunction(() => document.querySelector("#run-status")?.textContent === "Stopped. No patch was made.", null, {
    timeout: 5000,
  });
  assert.ok(Date.now() - stopped < 2000, "the run stops without waiting for the answer to finish");
  const deadline = Date.now() + 5000;
  while (!slow.stderr().includes("a client closed a streamed answer") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(slow.stderr(), /a client closed a streamed answer after \d+ of \d+ events/);
  await page.close();
});
