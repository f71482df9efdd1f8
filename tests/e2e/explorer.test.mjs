// The search explorer shows exactly what the model would read: the same text as `acr search` for the same call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, OUT, zipFixture, acrSearch, servedPlayground } from "./harness.mjs";

const playground = servedPlayground();

const explorerText = (page) => page.textContent("#explorer-output");

/** Fills the explorer's form (API and arguments) and searches. */
async function searchWithForm(page, api, args) {
  await page.selectOption("#explorer-api", api);
  for (const [param, value] of Object.entries(args)) await page.fill(`#explorer-arg-${param}`, value);
  await page.click("#explorer-run");
  return explorerText(page);
}

/** Types a call and presses Enter. */
async function searchWithCall(page, call) {
  await page.fill("#explorer-call", call);
  await page.press("#explorer-call", "Enter");
  return explorerText(page);
}

const same = (browserText, cliText, call) =>
  assert.equal(browserText.trimEnd(), cliText.trimEnd(), `explorer and acr search differ for ${call}`);

test("every API answers in the explorer as `acr search` answers on the command line (fixture zip)", async () => {
  const { page, errors } = playground.browser;
  const dir = join(ROOT, "tests", "fixtures", "minirepo");
  await page.goto(playground.server.url);
  await page.setInputFiles("#zip-input", zipFixture("minirepo"));
  await page.waitForSelector("#stats");
  await page.click("#tab-explorer");

  const forms = [
    ["search_class", { class_name: "Order" }, 'search_class("Order")'],
    ["search_method_in_class", { method_name: "total", class_name: "Order" }, 'search_method_in_class("total", "Order")'],
    ["search_code", { code_str: "self.lines" }, 'search_code("self.lines")'],
    ["get_code_around_line", { file_name: "orders.py", line_no: "15", window: "3" }, 'get_code_around_line("orders.py", 15, 3)'],
    ["search_method", { method_name: "no_such_method" }, 'search_method("no_such_method")'],
  ];
  for (const [api, args, call] of forms) {
    same(await searchWithForm(page, api, args), acrSearch(dir, call), call);
    assert.equal(await page.inputValue("#explorer-call"), call, "the form shows the call it made");
  }
  const typed = [
    'search_class_in_file("Order", "shop/orders.py")',
    'search_method_in_file("make_order", "orders.py")',
    "search_code_in_file('lines or []', 'orders.py')",
    'get_class_full_snippet("Survivor")',
    'search_method("describe")',
    'search_class("Nothing")',
  ];
  for (const call of typed) same(await searchWithCall(page, call), acrSearch(dir, call), call);

  // The code found is highlighted in its file, scrolled into view; a code search marks the string itself.
  await searchWithCall(page, 'search_code("lines or []")');
  assert.equal(await page.textContent("#explorer-file-path"), "shop/orders.py");
  const hit = page.locator("#explorer-file .cl.hit");
  assert.ok((await hit.count()) > 0);
  assert.equal(await page.locator("#explorer-file mark").first().textContent(), "lines or []");
  // The file view is scrolled so that the hit is visible.
  const [hitTop, viewTop, viewHeight] = await page.evaluate(() => {
    const view = document.querySelector("#explorer-file");
    const hit = view.querySelector(".cl.hit");
    return [hit.getBoundingClientRect().top, view.getBoundingClientRect().top, view.clientHeight];
  });
  assert.ok(hitTop >= viewTop && hitTop < viewTop + viewHeight, `hit at ${hitTop}, view ${viewTop}+${viewHeight}`);
  await page.locator(".tabs-card").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(OUT, "explorer.png") });

  // A call that does not parse is explained.
  await page.fill("#explorer-call", "search_clas('Order')");
  await page.press("#explorer-call", "Enter");
  assert.match(await page.textContent("#explorer-problem"), /search_class/);
  assert.deepEqual(errors, []);
});

test("the explorer agrees with `acr search` on the demo repository, and files open from the tree", async () => {
  const { page, errors } = playground.browser;
  const dir = join(ROOT, "web", "demo");
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  for (const call of ['search_method_in_class("total", "Cart")', 'search_class("Discount")', 'search_code("price_cents")']) {
    await page.click("#tab-explorer");
    same(await searchWithCall(page, call), acrSearch(dir, call), call);
  }
  await page.click("#file-tree summary");
  await page.click("#file-tree button.tree-folder:has-text('inventory')");
  await page.click("#file-tree button.tree-file:has-text('pricing.py')");
  assert.equal(await page.getAttribute("#tab-explorer", "aria-selected"), "true");
  assert.equal(await page.textContent("#explorer-file-path"), "inventory/pricing.py");
  assert.ok((await page.locator("#explorer-file .cl").count()) > 5);
  assert.deepEqual(errors, []);
});
