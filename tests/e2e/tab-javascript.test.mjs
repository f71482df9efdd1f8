// JavaScript in the tab: the JavaScript demo repaired in the playground with its reproducer run on the page's own
// engine (no download, no request beyond the page), the tab's runs compared with Node's on the same files, and what
// the tab's worker keeps a script from doing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  ROOT, OUT, RUNNER, acrSearch, blockForeignRequests, repairWithServer, runInTab, serveRunner, servedPlayground,
} from "./harness.mjs";

const playground = servedPlayground({
  foreign: async ({ browser, origin }) => blockForeignRequests(browser.page, origin),
  runner: async ({ origin }) => (existsSync(RUNNER) ? serveRunner(origin) : undefined),
});

const DEMO = join(ROOT, "web", "demo-js");
const FIX = "total += item.priceCents * units;";

async function loadDemo(page) {
  await page.goto(playground.server.url);
  await page.click("#demo-js-button");
  await page.waitForSelector("#stat-languages:has-text('JavaScript')");
}

/** Runs `command` on `files` with the real Node, in a scratch folder: `{exit_code, stdout, stderr}`. */
function node(files, command) {
  const dir = mkdtempSync(join(tmpdir(), "acr-tab-js-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const [program, ...args] = command.split(" ");
    // Without the variable Node's test runner sets for the files it runs: this suite runs under it, and a `node
    // --test` started with it would take itself for a nested run and skip its files.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(program === "node" ? process.execPath : program, args, { cwd: dir, encoding: "utf8", timeout: 30000, env });
    // Node names files by their absolute paths; the tab puts the repository at /repo.
    return { exit_code: run.status, stdout: run.stdout, stderr: run.stderr.replaceAll(`file://${dir}`, "/repo").replaceAll(dir, "/repo") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function tab(files, command, timeout_secs = 30) {
  const { page } = playground.browser;
  if (!page.url().startsWith(playground.server.url)) await loadDemo(page);
  return runInTab(page, { files, command, timeout_secs });
}

test("the JavaScript demo is repaired in the playground, its reproducer run in the tab", async () => {
  const { page, errors } = playground.browser;
  await loadDemo(page);
  assert.equal(await page.textContent("#stat-languages"), "JavaScript 3");
  assert.match(await page.inputValue("#issue"), /Cart\.total\(\) ignores quantities/);
  assert.equal(await page.inputValue("#runner-kind"), "tab");

  await page.click("#tab-explorer");
  for (const call of ['search_class("Cart")', 'search_method_in_class("total", "Cart")']) {
    await page.fill("#explorer-call", call);
    await page.press("#explorer-call", "Enter");
    const shown = await page.textContent("#explorer-output");
    assert.equal(shown.trimEnd(), acrSearch(DEMO, call).trimEnd(), `explorer and acr search differ for ${call}`);
  }

  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 120000 });
  assert.match(await page.textContent("#run-status"), /patch, validated by execution/);
  const diff = await page.textContent("#diff");
  assert.ok(diff.includes(FIX), diff);
  await page.click("#tab-transcript");
  const runs = page.locator("#transcript .ev.run");
  // The reproducer fails on the original with Node's assertion error, fails on the wrong first patch, passes on the fix.
  const rows = await runs.locator("summary").allTextContents();
  assert.equal(rows.length, 3, rows.join("\n"));
  assert.match(rows[0], /exit 1 .*in this tab/);
  assert.match(await runs.first().textContent(), /AssertionError \[ERR_ASSERTION\]: expected 150 cents for three apples, got 50/);
  assert.match(rows[2], /exit 0 .*in this tab/);
  assert.equal(await page.locator("#transcript .ev.note:has-text('execution in this tab runs')").count(), 0);
  await page.locator(".tabs-card").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(OUT, "javascript-demo.png") });
  assert.deepEqual(errors, []);
});

test("with the runner server, the JavaScript demo's reproducer runs with Node in its sandbox", async (t) => {
  if (!playground.runner) return t.skip(`no runner binary at ${RUNNER}`);
  const page = await playground.browser.ctx.newPage();
  try {
    await loadDemo(page);
    const { status, runs } = await repairWithServer(page, playground.runner);
    assert.match(status, /patch, validated by execution/);
    const diff = await page.textContent("#diff");
    assert.ok(diff.includes(FIX), diff);
    assert.match(await runs.first().locator("summary").textContent(), /exit 1 .*on the runner at http/);
    assert.match(await runs.first().textContent(), /AssertionError \[ERR_ASSERTION\]: expected 150 cents/);
    assert.match(await runs.last().locator("summary").textContent(), /exit 0 .*on the runner at http/);
  } finally {
    await page.close();
  }
});

/** Programs whose runs in the tab must match Node's: exit code and standard output, and stderr's first line. */
const SAME_AS_NODE = {
  "node --test read by acr's reporter": {
    files: {
      "acr_test_reporter.mjs": readFileSync(join(ROOT, "core", "src", "language", "acr_test_reporter.mjs"), "utf8"),
      "package.json": "{\"type\": \"module\"}",
      "test/a.test.js": "import { describe, it, test, beforeEach } from 'node:test';\nimport assert from 'node:assert/strict';\n" +
        "let n = 0;\ndescribe('a cart', () => {\n  beforeEach(() => { n += 1; });\n  it('adds one', () => assert.equal(n, 1));\n" +
        "  it('adds two', () => assert.equal(n, 3));\n  it.skip('is skipped', () => {});\n  it.todo('is to do');\n});\n" +
        "test('top level', async (t) => {\n  await t.test('inner', () => {});\n});\n",
      "test/b.test.cjs": "const test = require('node:test');\nconst assert = require('node:assert');\n" +
        "test('async and fine', async () => { await new Promise((r) => setTimeout(r, 5)); assert.ok(true); });\n" +
        "test('thrown', () => { throw new TypeError('bad'); });\n",
      "test/c.test.js": "import './missing.js';\n",
      "test/d.test.js": "import test from 'node:test';\ntest('all good', () => {});\n",
    },
    commands: [
      "node --test --test-reporter=./acr_test_reporter.mjs test/a.test.js test/b.test.cjs",
      "node --test --test-reporter=./acr_test_reporter.mjs test/c.test.js test/d.test.js",
      "node --test --test-reporter=./acr_test_reporter.mjs test/d.test.js",
    ],
  },
  "a failed assertion": {
    files: { "r.mjs": "import assert from 'node:assert';\nconsole.log('before');\nassert.strictEqual(1 + 1, 3, 'one and one');\n" },
  },
  "what console.log prints": {
    files: {
      "r.mjs": "console.log('text', 42, 1.5, -0, true, null, undefined, [1, 2, 3], { a: 1, b: 'x' }, 'a%sc', 'b');\n" +
        "console.log('%d items, %s', 3, 'ok');\nconsole.log(new Map([['k', 1]]), new Set([1, 2]), [], {});\n" +
        "class Point { constructor() { this.x = 1; } }\nconsole.log(new Point(), [[1, [2, [3]]]]);\nconsole.error('to stderr');\n",
    },
  },
  "CommonJS required and imported": {
    files: {
      "package.json": "{\"name\": \"cjs\"}",
      "lib/price.js": "const { round } = require('./round');\nexports.total = (xs) => round(xs.reduce((a, b) => a + b, 0));\n",
      "lib/round.js": "module.exports = { round: (x) => Math.round(x * 100) / 100 };\n",
      "data.json": "{\"prices\": [0.1, 0.2]}",
      "main.js": "const { total } = require('./lib/price');\nconsole.log(total(require('./data.json').prices));\n",
      "r.mjs": "import price, { total } from './lib/price.js';\nconsole.log(total([1.005, 2]), typeof price.total);\n",
    },
    commands: ["node main.js", "node r.mjs"],
  },
  "process.exit and exitCode": {
    files: {
      "exit.mjs": "console.log('one');\nprocess.exit(3);\nconsole.log('never');\n",
      "code.mjs": "process.exitCode = 2;\nsetTimeout(() => console.log('later'), 20);\nconsole.log('now');\n",
      "nested.mjs": "setTimeout(() => { console.log('in a timer'); process.exit(4); }, 10);\n",
    },
    commands: ["node exit.mjs", "node code.mjs", "node nested.mjs"],
  },
  "errors no one caught": {
    files: {
      "reject.mjs": "Promise.reject(new RangeError('too far'));\n",
      "timer.mjs": "setTimeout(() => { throw new TypeError('bad type'); }, 5);\n",
      "string.mjs": "throw 'a string';\n",
    },
    commands: ["node reject.mjs", "node timer.mjs", "node string.mjs"],
  },
  "deep equality and throws": {
    files: {
      "r.mjs": "import assert from 'node:assert/strict';\n" +
        "assert.deepStrictEqual(new Map([[1, { a: [1, 2] }]]), new Map([[1, { a: [1, 2] }]]));\n" +
        "assert.deepEqual({ a: 1 }, { a: 1 });\nassert.throws(() => { throw new Error('boom'); }, /boom/);\n" +
        "assert.throws(() => JSON.parse('{'), SyntaxError);\nawait assert.rejects(Promise.reject(new Error('no')), { message: 'no' });\n" +
        "assert.notDeepStrictEqual([1, 2], [1, '2']);\nassert.match('abc', /b/);\nconsole.log('all held');\n" +
        "assert.deepStrictEqual({ a: [1, 2] }, { a: [1, 3] });\n",
    },
  },
  "a module that is not there": {
    files: { "r.mjs": "import { f } from './missing.js';\nf();\n" },
  },
};

/**
 * The line of stderr that says what went wrong: the first that is not where Node shows the source (a `file:line`
 * line, the source line, indented, and a caret under it).
 */
function errorLine(stderr) {
  let lines = stderr.split("\n").filter((l) => l.trim());
  if (/^\S+:\d+$/.test(lines[0] ?? "")) lines = lines.slice(3);
  return (lines[0] ?? "").replace(/ \{$/, ""); // an error's own fields open after its last line

}

test("runs in the tab give what Node gives on the same files", async () => {
  const differ = [];
  let runs = 0;
  for (const [name, { files, commands = ["node r.mjs"] }] of Object.entries(SAME_AS_NODE)) {
    for (const command of commands) {
      const want = node(files, command);
      const got = await tab(files, command);
      runs += 1;
      const what = `${name} (${command})`;
      if (got.exit_code !== want.exit_code) differ.push(`${what}: exit ${got.exit_code}, Node ${want.exit_code}\n${got.stderr}`);
      if (got.stdout !== want.stdout) differ.push(`${what}: stdout\n--- Node\n${want.stdout}--- tab\n${got.stdout}`);
      if (errorLine(got.stderr) !== errorLine(want.stderr)) {
        differ.push(`${what}: stderr\n--- Node\n${want.stderr}\n--- tab\n${got.stderr}`);
      }
    }
  }
  assert.deepEqual(differ, [], `${differ.length} differences over ${runs} runs`);
});

/** The TypeScript cart (tests/fixtures/typescript-cart) with acr's loader and a reproducer, as a run's files. */
function typescriptCart() {
  const cart = join(ROOT, "tests", "fixtures", "typescript-cart");
  const files = {
    "acr_typescript.mjs": readFileSync(join(ROOT, "core", "src", "language", "acr_typescript.mjs"), "utf8"),
    "reproducer.mjs": "import assert from 'node:assert';\nimport { Cart, Item, Currency, formatCents } from './src/index.js';\n" +
      "const apple = new Item('A1', 'apple', 50);\nconst cart = new Cart().add(apple, 3);\n" +
      "console.log(String(apple), formatCents(cart.total(), Currency.Pound), cart.lines().length);\n" +
      "assert.strictEqual(cart.total(), 150, `expected 150 cents for three apples, got ${cart.total()}`);\n",
  };
  for (const path of ["package.json", "src/cart.ts", "src/index.ts", "src/item.ts", "src/money.ts"]) {
    files[path] = readFileSync(join(cart, path), "utf8");
  }
  return files;
}

test("TypeScript runs in the tab as acr's loader runs it under Node, with no compiler", async (t) => {
  const files = typescriptCart();
  const command = "node --import ./acr_typescript.mjs reproducer.mjs";
  const fixed = { ...files, "src/cart.ts": files["src/cart.ts"].replace("total += item.priceCents;", "total += item.priceCents * units;") };
  const bug = await tab(files, command);
  assert.equal(bug.exit_code, 1, bug.stderr);
  assert.equal(bug.stdout, "apple (A1, EUR) 0.50 GBP 1\n", "an enum, parameter properties and a type-only export");
  assert.match(bug.stderr, /AssertionError \[ERR_ASSERTION\]: expected 150 cents for three apples, got 50/);
  const good = await tab(fixed, command);
  assert.equal(good.exit_code, 0, good.stderr);
  assert.equal(good.stdout, "apple (A1, EUR) 1.50 GBP 1\n");
  const refused = await tab({ ...files, "src/money.ts": `${files["src/money.ts"]}namespace Money { export const x = 1; }\n` }, command);
  assert.equal(refused.exit_code, 1);
  assert.match(refused.stderr, /src\/money\.ts cannot run: line 12: a namespace holding values needs the TypeScript compiler/);

  if (!playground.runner) return t.skip(`no runner binary at ${RUNNER}: the tab's runs were not compared with Node's`);
  for (const [name, run] of [["the bug", files], ["the fix", fixed]]) {
    const response = await fetch(`${playground.runner.url}/run`, {
      method: "POST",
      headers: { Authorization: `Bearer ${playground.runner.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ files: run, patch: "", command, timeout_secs: 30 }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const want = await response.json();
    const got = await tab(run, command);
    assert.equal(got.exit_code, want.exit_code, `${name}: ${got.stderr}\n--- Node\n${want.stderr}`);
    assert.equal(got.stdout, want.stdout, name);
    assert.equal(errorLine(got.stderr), errorLine(want.stderr.replaceAll(/file:\/\/\S*?\/repo/g, "/repo")), name);
  }
});

test("a script in the tab cannot reach the network or the page, and cannot outlast its time limit", async () => {
  const { errors } = playground.browser;
  const probe = await tab({
    "r.mjs": `const tried = [];
for (const [what, go] of [
  ["fetch", () => fetch("http://example.com/")],
  ["import", () => import("https://example.com/x.mjs")],
  ["data import", () => import("data:text/javascript,export default 1")],
  ["WebSocket", () => new WebSocket("ws://example.com/")],
  ["postMessage", () => self.postMessage({ kind: "done", id: 1, exit_code: 0 })],
  ["nested worker", () => new Worker("data:text/javascript,")],
]) {
  try { await go(); tried.push(what + ": open"); } catch (e) { tried.push(what + ": closed"); }
}
console.log(tried.join("\\n"));
`,
  }, "node r.mjs");
  assert.equal(probe.exit_code, 0, probe.stderr);
  assert.equal(probe.stdout, ["fetch", "import", "data import", "WebSocket", "postMessage", "nested worker"].map((w) => `${w}: closed\n`).join(""));

  const loop = await tab({ "loop.mjs": "console.log('spinning');\nwhile (true) {}\n" }, "node loop.mjs", 2);
  assert.equal(loop.timed_out, true);
  assert.equal(loop.exit_code, null);
  const after = await tab({ "ok.mjs": "console.log('still here');\n" }, "node ok.mjs");
  assert.equal(after.stdout, "still here\n", "the next run gets a fresh worker");

  const circle = await tab({ "r.mjs": "import './a.mjs';\n", "a.mjs": "import './r.mjs';\n" }, "node r.mjs");
  assert.equal(circle.exit_code, 1);
  assert.match(circle.stderr, /r\.mjs -> a\.mjs -> r\.mjs import each other in a circle/);
  const fs = await tab({ "r.mjs": "import { readFileSync } from 'node:fs';\n" }, "node r.mjs");
  assert.equal(fs.exit_code, 1);
  assert.match(fs.stderr, /only assert, util, events, path, process, test and timers are built in/);
  const flood = await tab({ "r.mjs": "for (let i = 0; i < 20000; i++) console.log('x'.repeat(100));\n" }, "node r.mjs");
  assert.equal(flood.truncated, true);
  assert.ok(flood.stdout.length < 70000, `${flood.stdout.length} characters kept`);
  assert.deepEqual(errors, []);
});

test("without its Content-Security-Policy the script worker refuses to run code", async () => {
  const { createServer } = await import("node:http");
  const dist = join(ROOT, "dist");
  // The playground served with no headers at all, as a careless static host would.
  const server = createServer((req, res) => {
    const path = join(dist, decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/\/$/, "/index.html"));
    try {
      const body = readFileSync(path);
      const type = path.endsWith(".wasm") ? "application/wasm" : /\.m?js$/.test(path) ? "text/javascript" : path.endsWith(".html") ? "text/html" : "application/octet-stream";
      res.writeHead(200, { "Content-Type": type });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const page = await playground.browser.ctx.newPage();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.click("#demo-js-button");
    await page.waitForSelector("#stat-languages:has-text('JavaScript')");
    const run = await runInTab(page, { files: { "r.mjs": "console.log('ran');\n" }, command: "node r.mjs", timeout_secs: 30 });
    assert.equal(run.stdout, "");
    assert.equal(run.exit_code, null);
    assert.match(run.stderr, /JavaScript runs only in a worker its server keeps to the page's own scripts/);
  } finally {
    await page.close();
    server.close();
  }
});
