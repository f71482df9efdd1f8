// The offline demo: the scripted demo model repairs the bundled demo repository with no request beyond the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { OUT, blockForeignRequests, downloadText, useRunner, servedPlayground } from "./harness.mjs";

const playground = servedPlayground();

const FIX = "total += item.price_cents * units";

/** Scrolls the results card to the top of the window (for screenshots). */
const showResults = (page) => page.locator(".tabs-card").evaluate((e) => e.scrollIntoView({ block: "start" }));

/** Loads the demo; these tests follow the flow without execution (tab-python.test.mjs runs it with Python). */
async function loadDemo(page) {
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await useRunner(page, "none");
}

test("the demo model repairs the demo repository with no network beyond the page", async () => {
  const { page, errors } = playground.browser;
  const foreign = await blockForeignRequests(page, playground.server.url.replace(/\/$/, ""));
  await loadDemo(page);
  // The demo repository brings its issue with it.
  assert.match(await page.inputValue("#issue"), /Cart\.total\(\) ignores quantities/);
  assert.equal(await page.inputValue("#provider"), "demo");
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok", { timeout: 60000 });
  assert.match(await page.textContent("#run-status"), /an applicable patch/);

  // The result tab opens on its own and shows the fix, with line numbers and the per-edit message.
  assert.equal(await page.getAttribute("#tab-result", "aria-selected"), "true");
  const diff = await page.textContent("#diff");
  assert.ok(diff.includes(FIX), diff);
  assert.equal(await page.textContent("#result-status"), "APPLICABLE_PATCH");
  assert.match(await page.textContent("#edit-messages"), /applied to inventory\/cart\.py lines 26-27/);
  const added = page.locator("#diff tr.add");
  assert.equal(await added.count(), 1);
  assert.equal(await added.locator("td.ln").nth(1).textContent(), "27");
  assert.ok((await page.locator("#diff tr.add .tk-kw, #diff tr.ctx .tk-kw").count()) > 0, "Python is coloured");
  await showResults(page);
  await page.screenshot({ path: join(OUT, "diff.png") });

  // Side by side pairs the removed line with the added one.
  await page.click("#diff button:has-text('Side by side')");
  const row = page.locator("#diff table.split tr", { has: page.locator("td.code.add") });
  assert.equal(await row.count(), 1);
  assert.ok((await row.locator("td.code.del").textContent()).includes("total += item.price_cents"));
  await page.screenshot({ path: join(OUT, "diff-split.png") });

  // The .diff download is the patch itself.
  const patch = await downloadText(page, "#diff .download-diff");
  assert.equal(patch.name, "acr.diff");
  assert.ok(patch.text.startsWith("diff --git a/inventory/cart.py b/inventory/cart.py"), patch.text);
  assert.ok(patch.text.includes(`+            ${FIX}\n`), patch.text);

  // The transcript: every round is there, and its JSON download carries the events and the outcome.
  await page.click("#tab-transcript");
  assert.equal(await page.locator("#transcript .ev.search").count(), 2);
  assert.equal(await page.locator("#transcript .ev.patch").count(), 1);
  assert.match(await page.textContent("#transcript .ev.locations"), /inventory\/cart\.py · Cart · total · lines 23-30/);
  assert.equal(await page.textContent("#count-calls"), "4");
  assert.ok(Number(await page.textContent("#count-in")) > 0);
  // The budget meter: used / limit, with the demo model's counts marked as estimated.
  assert.equal(await page.textContent("#limit-calls"), " / 300");
  assert.match(await page.textContent("#count-tokens"), /^~\d+$/);
  await page.locator("#transcript .ev.search summary").first().click();
  await showResults(page);
  await page.screenshot({ path: join(OUT, "run.png") });
  await page.locator("#transcript .ev.search summary").first().click();
  const transcript = JSON.parse((await downloadText(page, "#download-transcript")).text);
  assert.equal(transcript.outcome.status, "APPLICABLE_PATCH");
  assert.equal(transcript.model_calls, 4);
  assert.deepEqual(
    transcript.events.map((e) => e.event),
    ["try", "phase", "model", "proxy", "search", "search", "model", "model", "proxy", "locations", "phase", "shown", "model",
      "patch", "selection"],
  );
  assert.equal(transcript.outcome.selection.chosen, 1);
  assert.equal(transcript.outcome.tries.length, 1);

  // A search call in the transcript opens in the explorer with the same text.
  const output = await page.locator("#transcript .ev.search pre").first().textContent();
  await page.locator("#transcript .explore-link").first().click();
  assert.equal(await page.getAttribute("#tab-explorer", "aria-selected"), "true");
  assert.equal(await page.textContent("#explorer-output"), output);
  assert.equal(await page.inputValue("#explorer-call"), 'search_class("Cart")');

  assert.deepEqual(foreign, [], "no request left the page's origin");
  assert.deepEqual(errors, []);
});

test("MCTS mode shows the tree of candidates with visits, values and patches", async () => {
  const { page, errors } = playground.browser;
  const foreign = await blockForeignRequests(page, playground.server.url.replace(/\/$/, ""));
  await loadDemo(page);
  await page.check("#mode-mcts");
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok", { timeout: 90000 });
  assert.ok((await page.textContent("#diff")).includes(FIX));

  await page.click("#tab-tree");
  // The three distinct candidates of the root's expansion (the demo script has three patches) are rated; the
  // refinements that do not compile are leaves with reward -1.
  const heads = page.locator("#mcts .node-head");
  assert.equal(await heads.filter({ hasText: /rated/ }).count(), 3);
  assert.ok((await heads.filter({ hasText: /error/ }).count()) >= 1);
  const chosen = page.locator("#mcts .tree-node.chosen");
  assert.equal(await chosen.count(), 1);
  const head = await chosen.locator(".node-head").first().textContent();
  assert.match(head, /visits \d+/);
  assert.match(head, /value -?\d\.\d\d/);
  assert.match(head, /rated/);
  await chosen.locator("details.node-diff summary").first().click();
  assert.ok((await chosen.locator(".diff").first().textContent()).includes(FIX));
  // Earlier states of the tree stay available.
  const iterations = await page.locator("#mcts-iteration option").count();
  assert.ok(iterations >= 2, `${iterations} iterations`);
  await page.selectOption("#mcts-iteration", "0");
  assert.match(await page.textContent("#mcts"), /iteration 1/);
  await page.selectOption("#mcts-iteration", String(iterations - 1));
  await page.locator("#mcts .tree-node.chosen details.node-diff").first().evaluate((d) => { d.open = true; });
  await showResults(page);
  await page.screenshot({ path: join(OUT, "mcts.png") });
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
});

test("the stop button stops a run between steps", async () => {
  const { page, errors } = playground.browser;
  await loadDemo(page);
  await page.check("#mode-mcts");
  await page.click("#run-button");
  await page.waitForSelector("#transcript .ev.model");
  await page.click("#stop-button");
  await page.waitForSelector("#run-status:has-text('Stopped.')", { timeout: 30000 });
  assert.equal(await page.isDisabled("#run-button"), false);
  assert.deepEqual(errors, []);
});

test("limits set in the page bound the run: a call budget stops MCTS and keeps its best patch", async () => {
  const { page, errors } = playground.browser;
  await loadDemo(page);
  await page.check("#mode-mcts");
  await page.click("#run-limits summary");
  await page.fill("#limit-calls-input", "8");
  await page.dispatchEvent("#limit-calls-input", "change");
  assert.equal(await page.textContent("#limit-calls"), " / 8");
  await page.click("#run-button");
  await page.waitForSelector("#result-budget", { timeout: 60000 });
  assert.equal(await page.textContent("#count-calls"), "8");
  assert.match(await page.textContent("#run-status"), /budget/i);
  assert.deepEqual(errors, []);
});

test("the page works in a narrow window and in the dark theme", async () => {
  const { page, errors } = playground.browser;
  await page.setViewportSize({ width: 420, height: 860 });
  await loadDemo(page);
  await page.selectOption("#theme", "dark");
  assert.equal(await page.getAttribute("html", "data-theme"), "dark");
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok", { timeout: 60000 });
  // Nothing is wider than the window.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page overflows by ${overflow}px`);
  await page.screenshot({ path: join(OUT, "narrow-dark.png"), fullPage: true });
  await page.selectOption("#theme", "light");
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.deepEqual(errors, []);
});

test("tabs and controls are reachable with the keyboard", async () => {
  const { page } = playground.browser;
  await loadDemo(page);
  await page.focus("#tab-transcript");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.getAttribute("#tab-result", "aria-selected"), "true");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-result");
  await page.keyboard.press("ArrowLeft");
  assert.equal(await page.getAttribute("#tab-transcript", "aria-selected"), "true");
  // The run button can be reached by tabbing from the issue box and started with Enter.
  await page.focus("#issue");
  for (let i = 0; i < 6 && (await page.evaluate(() => document.activeElement.id)) !== "run-button"; i++) {
    await page.keyboard.press("Tab");
  }
  assert.equal(await page.evaluate(() => document.activeElement.id), "run-button");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#run-status.ok", { timeout: 60000 });
});
