// Python in the tab (Pyodide in a dedicated worker), the default runner: the demo repair validated by execution
// with no server and no network in ACR and MCTS modes, time limits that kill the worker, containment, missing
// packages, pytest from dropped wheels and from a package index, and memory exhaustion. One page and its Python are
// shared by the tests that can share them (Pyodide takes about 3 s to start).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ROOT, OUT, blockForeignRequests, runInTab, pytestWheels, servePackageIndex, demoFiles, serveModel, acrHas, servedPlayground,
} from "./harness.mjs";
import { DEMO_FIX } from "../fixtures/differential/cases.mjs";

const playground = servedPlayground({
  foreign: async ({ browser, origin }) => blockForeignRequests(browser.page, origin),
});

const FIX = "total += item.price_cents * units";

async function loadDemo(page) {
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
}

/** Runs a request in the shared page's Python (loading the page first when a test runs alone). */
async function python(request) {
  const { page } = playground.browser;
  if (!page.url().startsWith(playground.server.url)) await loadDemo(page);
  return runInTab(page, request);
}

/** The transcript's execution rows. */
async function runRows(page) {
  await page.click("#tab-transcript");
  return page.locator("#transcript .ev.run summary").allTextContents();
}

test("ACR: the demo patch is validated by execution in the tab, offline, with no setting changed", async () => {
  const { page, errors } = playground.browser;
  await loadDemo(page);
  assert.equal(await page.inputValue("#runner-kind"), "tab");
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 120000 });
  assert.match(await page.textContent("#run-status"), /an applicable patch, validated by execution/);
  assert.ok((await page.textContent("#diff")).includes(FIX));
  assert.equal(await page.textContent("#result-status"), "APPLICABLE_PATCH");
  const rows = await runRows(page);
  // Reproduce first, the reviewer's run, then validation's regression check (the demo's own tests).
  assert.equal(rows.length, 4, rows.join("\n"));
  assert.match(rows[0], /reproducer on original: exit 1 in \d+ ms\s*in this tab/);
  assert.match(rows[1], /reproducer on patch: exit 0 in \d+ ms\s*in this tab/);
  assert.match(rows[2], /tests on original: exit 1 in \d+ ms\s*in this tab/);
  assert.match(rows[3], /tests on patch: exit 0 in \d+ ms\s*in this tab/);
  // The reproducer failed with the numbers before the patch, as CPython reports it.
  await page.locator("#transcript .ev.run summary").first().click();
  const first = await page.locator("#transcript .ev.run").first().textContent();
  assert.match(first, /AssertionError: expected 150 cents for three apples, got 50/);
  assert.match(await page.textContent("#transcript .ev.review"), /patch accepted, test accepted/);
  await page.click("details.runner summary");
  assert.match(await page.textContent("#python-status"), /Python 3\.14\.\d+ \(Pyodide 314\.0\.7\) ready/);
  await page.screenshot({ path: join(OUT, "tab-run.png"), fullPage: true });
  await page.click("#tab-result");
  await page.locator(".tabs-card").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(OUT, "tab-validated.png") });
  assert.deepEqual(playground.foreign, [], "nothing left the page's origin");
  assert.deepEqual(errors, []);
});

test("MCTS: candidates get their reward from real runs in the tab", async () => {
  const { page, errors } = playground.browser;
  await loadDemo(page);
  await page.check("#mode-mcts");
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 120000 });
  assert.match(await page.textContent("#run-status"), /validated by execution/);
  const rows = await runRows(page);
  assert.match(rows[0], /reproducer on original: exit 1 .*in this tab/);
  assert.match(rows.at(-1), /validation: exit 0 .*in this tab/);
  await page.click("#tab-tree");
  const chosen = page.locator("#mcts .tree-node.chosen .node-head").first();
  assert.match(await chosen.textContent(), /pass/);
  assert.deepEqual(playground.foreign, []);
  assert.deepEqual(errors, []);
});

test("MCTS with a model that tries wrong patches first: FAIL rewards from runs, then PASS", async (t) => {
  if (!acrHas("serve-model")) return t.skip("this acr has no serve-model subcommand");
  const model = await serveModel(join(ROOT, "tests", "fixtures", "scripts", "demo-mcts.json"));
  const page = await playground.browser.ctx.newPage();
  try {
    await loadDemo(page);
    await page.selectOption("#provider", "custom");
    await page.fill("#base-url", model.url);
    await page.fill("#model-name", "scripted");
    await page.check("#mode-mcts");
    await page.click("#run-button");
    await page.waitForSelector("#run-status.ok, #run-error", { timeout: 120000 });
    assert.match(await page.textContent("#run-status"), /validated by execution/);
    const rows = await runRows(page);
    const validations = rows.filter((r) => r.includes("validation"));
    assert.deepEqual(validations.map((r) => r.match(/exit (\d+)/)[1]), ["1", "1", "0"], rows.join("\n"));
    await page.click("#tab-tree");
    const heads = await page.locator("#mcts .tree-node .node-head").allTextContents();
    assert.equal(heads.filter((h) => /fail/.test(h)).length, 2, heads.join("\n"));
    assert.equal(heads.filter((h) => /pass/.test(h)).length, 1, heads.join("\n"));
  } finally {
    await page.close();
    model.close();
  }
});

test("a run past its time limit is killed with the worker, and the next run works", async () => {
  const { page } = playground.browser;
  const endless = await python({
    files: { "loop.py": "print('started', flush=True)\nwhile True:\n    pass\n" },
    command: "python3 loop.py",
    timeout_secs: 2,
  });
  assert.equal(endless.timed_out, true);
  assert.equal(endless.exit_code, null);
  assert.ok(endless.duration_ms >= 2000, `${endless.duration_ms} ms`);
  const next = await python({ files: { "ok.py": "print('next')\n" }, command: "python3 ok.py", timeout_secs: 30 });
  assert.deepEqual([next.exit_code, next.stdout, next.timed_out], [0, "next\n", false]);
});

test("code in the tab cannot reach the network or the page", async () => {
  const { page, errors } = playground.browser;
  const before = playground.foreign.length;
  const probe = `
import asyncio, inspect, js, pyodide_js

def attempt(name, f):
    try:
        result = f()
        if inspect.isawaitable(result) or hasattr(result, "then"):
            result = asyncio.get_event_loop().run_until_complete(result)
        print(f"{name}: OPEN {result!r}")
    except BaseException as e:
        print(f"{name}: refused ({type(e).__name__})")

url = "${playground.origin}/index.html"
attempt("fetch", lambda: js.fetch(url))
attempt("XMLHttpRequest", lambda: js.XMLHttpRequest.new().open("GET", url))
attempt("WebSocket", lambda: js.WebSocket.new("ws://127.0.0.1:9"))
attempt("EventSource", lambda: js.EventSource.new(url))
attempt("WebTransport", lambda: js.WebTransport.new("https://127.0.0.1:9/"))
attempt("importScripts", lambda: js.importScripts(url))
attempt("dynamic import via eval", lambda: js.eval(f"import('{url}')"))
attempt("dynamic import via Function", lambda: js.Function(f"return import('{url}')")())
attempt("dynamic import via a function's constructor", lambda: js.Object.constructor(f"return import('{url}')")())
attempt("setTimeout with a string", lambda: js.setTimeout("1", 0))
attempt("nested Worker", lambda: js.Worker.new(url))
attempt("postMessage to the page", lambda: js.postMessage("forged"))
attempt("postMessage from the prototype", lambda: js.Object.getPrototypeOf(js.self).postMessage)
attempt("BroadcastChannel", lambda: js.BroadcastChannel.new("acr"))
attempt("indexedDB", lambda: js.indexedDB.open("acr"))
attempt("caches", lambda: js.caches.open("acr"))
attempt("navigator.storage", lambda: js.navigator.storage.getDirectory())
attempt("FontFace", lambda: js.FontFace.new("x", f"url({url})").load())
attempt("close the worker", lambda: js.close())
attempt("pyodide.http.pyfetch", lambda: __import__("pyodide.http").http.pyfetch(url))
attempt("pyodide.http.open_url", lambda: __import__("pyodide.http").http.open_url(url))
attempt("pyodide.code.run_js", lambda: __import__("pyodide.code").code.run_js("1"))
attempt("pyodide.loadPackage", lambda: pyodide_js.loadPackage(url + ".whl"))
attempt("pyodide's script loader", lambda: pyodide_js._api.loadScript(url))
attempt("micropip", lambda: __import__("micropip"))
`;
  const result = await python({ files: { "probe.py": probe }, command: "python3 probe.py", timeout_secs: 60 });
  assert.equal(result.exit_code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n");
  assert.equal(lines.length, 25, result.stdout);
  for (const line of lines) assert.match(line, /: refused \(/, line);
  assert.equal(playground.foreign.length, before, `requests left the page: ${playground.foreign.slice(before).join(", ")}`);
  // The page and its Python still work.
  const after = await python({ files: { "ok.py": "print(2 + 2)\n" }, command: "python3 ok.py", timeout_secs: 30 });
  assert.equal(after.stdout, "4\n");
  assert.deepEqual(errors, []);
});

test("a module that is not installed is named, and requirements that cannot be installed say why", async () => {
  const { page, errors } = playground.browser;
  const missing = await python({
    files: { "r.py": "import requests\n" },
    command: "python3 r.py",
    timeout_secs: 30,
  });
  assert.equal(missing.exit_code, 1);
  assert.match(missing.stderr, /ModuleNotFoundError: No module named 'requests'/);
  assert.match(missing.stderr, /the package that provides `requests` is not installed; list it under Packages/);
  const stdlib = await python({ files: { "r.py": "import _tkinter\n" }, command: "python3 r.py", timeout_secs: 30 });
  assert.match(stdlib.stderr, /`_tkinter` is part of CPython's standard library but not of Python in the browser/);

  // Offline, a requirement cannot come from PyPI; a compiled package has no pure-Python wheel.
  await page.click("details.runner summary");
  await page.fill("#requirements", "requests\nnumpy\n");
  await page.click("#start-python");
  await page.waitForSelector("#python-status .ok", { timeout: 120000 });
  const failed = await page.textContent("#python-not-installed");
  assert.match(failed, /requests: neither the package index nor Pyodide.s CDN .* could be reached \(offline\?\)/);
  assert.match(failed, /numpy: neither the package index nor Pyodide.s CDN .* could be reached \(offline\?\)/);
  // The installer did try the network (and the test's route refused it, as being offline would).
  assert.ok(playground.foreign.some((u) => u.startsWith("https://pypi.org/")), playground.foreign.join("\n"));
  await page.fill("#requirements", "");
  await page.click("details.runner summary");
  assert.deepEqual(errors, []);
});

test("pytest runs from dropped wheels, offline", async () => {
  const { page, errors } = playground.browser;
  await loadDemo(page);
  await page.click("details.runner summary");
  await page.setInputFiles("#wheels", pytestWheels());
  await page.waitForSelector(`#wheel-list li:nth-child(${pytestWheels().length})`);
  await page.click("#start-python");
  await page.waitForSelector("#python-status .ok", { timeout: 120000 });
  assert.match(await page.textContent("#python-installed"), /pytest 9\.0\.2/);
  const files = demoFiles();
  const failing = await python({ files, command: "python3 -m pytest -q tests/test_cart.py", timeout_secs: 60 });
  assert.equal(failing.exit_code, 1, failing.stdout + failing.stderr);
  assert.match(failing.stdout, /1 failed/);
  assert.match(failing.stdout, /assert 50 == 150/);
  const passing = await python({ files, patch: DEMO_FIX, command: "pytest -q tests", timeout_secs: 60 });
  assert.equal(passing.exit_code, 0, passing.stdout + passing.stderr);
  assert.match(passing.stdout, /1 passed/);
  assert.deepEqual(errors, []);
});

test("requirements install with micropip from a package index", async () => {
  const index = await servePackageIndex();
  const page = await playground.browser.ctx.newPage();
  try {
    const seen = [];
    page.on("request", (r) => seen.push(r.url()));
    await loadDemo(page);
    await page.click("details.runner summary");
    await page.fill("#package-index", index.url);
    await page.fill("#requirements", "pytest>=9\n");
    await page.click("#start-python");
    await page.waitForSelector("#python-status .ok", { timeout: 180000 });
    assert.match(await page.textContent("#python-installed"), /pytest 9\.0\.2/);
    assert.equal(await page.locator("#python-not-installed").count(), 0);
    const request = { files: demoFiles(), patch: DEMO_FIX, command: "python3 -m pytest -q", timeout_secs: 60 };
    const run = await runInTab(page, request);
    assert.equal(run.exit_code, 0, run.stdout + run.stderr);
    assert.ok(seen.some((u) => u.startsWith(`${index.origin}/files/pytest-9.0.2`)), seen.join("\n"));
  } finally {
    await page.close();
    index.close();
  }
});

test("a run that exhausts memory ends with MemoryError, and the page keeps working", async () => {
  const { page, errors } = playground.browser;
  const bomb = await python({
    files: { "bomb.py": "blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))\n" },
    command: "python3 bomb.py",
    timeout_secs: 60,
  });
  assert.equal(bomb.exit_code, 1, bomb.stderr);
  assert.match(bomb.stderr, /MemoryError/);
  assert.match(bomb.stderr, /Python used its 1024 MiB of memory; the next run gets a fresh Python/);
  const next = await python({ files: { "ok.py": "print('fresh')\n" }, command: "python3 ok.py", timeout_secs: 30 });
  assert.equal(next.stdout, "fresh\n");
  assert.ok(await page.isVisible("#stats"));
  assert.deepEqual(errors, []);
});

test("when the core traps and restarts, its Python workers are stopped with it", async () => {
  const page = await playground.browser.ctx.newPage();
  try {
    await loadDemo(page);
    await runInTab(page, { files: { "ok.py": "print(1)\n" }, command: "python3 ok.py", timeout_secs: 30 });
    // A run in progress: its worker would spin on if nobody terminated it (the old core's timers cannot).
    page.evaluate(() => window.acrRunInTab({ files: { "loop.py": "while True: pass\n" }, command: "python3 loop.py",
      timeout_secs: 600 })).catch(() => {});
    // Python workers only: the new core starts indexing workers of its own once idle (web/src/warm.rs).
    const pythonWorkers = () => page.workers().filter((w) => w.url().includes("python-worker")).length;
    assert.ok(pythonWorkers() >= 1);
    await page.evaluate(() => { location.hash = "acr-test-trap=index"; });
    await page.click("#demo-button");
    await page.waitForSelector("#core-restarted", { timeout: 20000 });
    for (let i = 0; i < 50 && pythonWorkers() > 0; i++) await page.waitForTimeout(100);
    assert.equal(pythonWorkers(), 0, "the old core's workers are gone");
    // The new core starts its own Python.
    const after = await runInTab(page, { files: { "ok.py": "print(2)\n" }, command: "python3 ok.py", timeout_secs: 30 });
    assert.equal(after.stdout, "2\n");
  } finally {
    await page.close();
  }
});
