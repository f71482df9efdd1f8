// The optional reproducer runner, reached from the page: the demo run writes a reproducer, the runner executes it
// before and after the patch, and the reviewer accepts the patch, validated by execution.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { OUT, RUNNER, serveRunner, useRunner, servedPlayground } from "./harness.mjs";

const playground = servedPlayground({
  runner: async ({ origin }) => (existsSync(RUNNER) ? serveRunner(origin) : undefined),
});

test("with the runner set, the demo patch is validated by execution", async (t) => {
  if (!playground.runner) return t.skip(`no runner binary at ${RUNNER}`);
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await useRunner(page, "server");
  await page.click("details.runner summary");
  await page.fill("#runner-url", playground.runner.url);
  await page.fill("#runner-token", "wrong-token-wrong-token-wrong-token");
  await page.click("#test-runner");
  assert.match(await page.textContent("#runner-status.error"), /access token was refused/);
  await page.fill("#runner-token", playground.runner.token);
  await page.click("#test-runner");
  assert.match(await page.textContent("#runner-status.ok"), /runner .* is up; sandbox: bubblewrap/);

  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 90000 });
  assert.match(await page.textContent("#run-status"), /patch, validated by execution/);
  await page.click("#tab-transcript");
  const runs = page.locator("#transcript .ev.run summary");
  // Reproduce first, then the reviewer's run, then validation's regression check (the demo's own tests).
  assert.equal(await runs.count(), 4);
  assert.match(await runs.nth(0).textContent(), /reproducer on original: exit 1 .*on the runner at http/);
  assert.match(await runs.nth(1).textContent(), /reproducer on patch: exit 0 .*on the runner at http/);
  assert.match(await runs.nth(2).textContent(), /tests on original: .*on the runner at http/);
  assert.match(await runs.nth(3).textContent(), /tests on patch: exit 0 .*on the runner at http/);
  assert.match(await page.textContent("#transcript .ev.review"), /patch accepted, test accepted/);
  await page.screenshot({ path: join(OUT, "runner-run.png") });
  assert.deepEqual(errors, []);
});

test("a runner started without its sandbox is shown in red", async (t) => {
  if (!playground.runner) return t.skip(`no runner binary at ${RUNNER}`);
  const bare = await serveRunner(playground.server.url.replace(/\/$/, ""), { args: ["--unsafe-no-sandbox"] });
  try {
    const { page, errors } = playground.browser;
    await page.goto(playground.server.url);
    await useRunner(page, "server");
    await page.click("details.runner summary");
    await page.fill("#runner-url", bare.url);
    await page.fill("#runner-token", bare.token);
    await page.click("#test-runner");
    const status = page.locator("#runner-status.error.warning");
    assert.match(await status.textContent(), /UNSAFE: runs are NOT sandboxed.*runner .* is up; sandbox: none/);
    const color = await status.evaluate((el) => getComputedStyle(el).color);
    const errorColor = await page.evaluate(() => {
      const probe = document.createElement("p");
      probe.className = "error";
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    assert.equal(color, errorColor, "the warning has the page's error colour");
    assert.deepEqual(errors, []);
  } finally {
    bare.close();
  }
});
