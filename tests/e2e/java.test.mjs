// Java in the playground: the Java demo loads (counts per language), the explorer answers on Java as `acr search`
// does, and the demo model repairs it with a note that execution in the tab is Python only.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, OUT, serveDist, openBrowser, blockForeignRequests, acrSearch } from "./harness.mjs";

let server, browser;
before(async () => {
  server = await serveDist();
  browser = await openBrowser();
});
after(async () => {
  await browser?.ctx.close();
  server?.close();
});

const DEMO = join(ROOT, "web", "demo-java");

test("the Java demo loads, is searched as on the command line and is repaired without execution", async () => {
  const { page, errors } = browser;
  const foreign = await blockForeignRequests(page, server.url.replace(/\/$/, ""));
  await page.goto(server.url);
  await page.click("#demo-java-button");
  await page.waitForSelector("#stats");
  // The test file is not indexed (Maven's src/test/java), the three sources are.
  assert.equal(await page.textContent("#stat-languages"), "Java 3");
  assert.equal(await page.textContent("#stat-classes"), "3");
  assert.match(await page.inputValue("#issue"), /A book due back today is listed as overdue/);

  await page.click("#tab-explorer");
  for (const call of ['search_class("Library")', 'search_method_in_class("overdue", "Library")', 'search_code("isAfter")']) {
    await page.fill("#explorer-call", call);
    await page.press("#explorer-call", "Enter");
    const shown = await page.textContent("#explorer-output");
    assert.equal(shown.trimEnd(), acrSearch(DEMO, call).trimEnd(), `explorer and acr search differ for ${call}`);
  }

  // The default runner is Python in this tab: the run goes on without execution and says why.
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok", { timeout: 60000 });
  const diff = await page.textContent("#diff");
  assert.ok(diff.includes("if (loan.due().isBefore(today)) {"), diff);
  await page.click("#tab-transcript");
  assert.match(await page.textContent("#transcript .ev.note >> nth=0"), /Java repository, and execution in this tab runs Python only/);
  await page.locator(".tabs-card").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(OUT, "java-demo.png") });

  // Back to the Python demo: its own issue and script again.
  await page.click("#demo-button");
  await page.waitForSelector("#stat-languages:has-text('Python')");
  assert.match(await page.inputValue("#issue"), /Cart\.total\(\) ignores quantities/);
  assert.deepEqual(foreign, [], "no request left the page's origin");
  assert.deepEqual(errors, []);
});
