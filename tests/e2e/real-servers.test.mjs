// The page against real OpenAI-compatible servers nobody in this project wrote: llama.cpp's llama-server with a real
// small model (SmolLM2-135M) and a LiteLLM proxy, started by tools/model_servers.py on free loopback ports (installed
// by tools/setup.sh; the tests skip with a message when they are not). A user's path: the preset, the base URL, the
// key, Test connection (a CORS preflight with Authorization), a streamed run that is stopped while it streams, a
// small context window typed as the server has it, and a proxy that answers without CORS headers when the key is
// missing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, OUT, useRunner, servedPlayground } from "./harness.mjs";

const LAUNCHER = join(ROOT, "tools", "model_servers.py");
const KEY = "sk-e2e-llama-key";

/** Whether tools/setup.sh installed `kind` (llama or litellm). */
function installed(kind) {
  return spawnSync("python3", [LAUNCHER, "check", kind], { stdio: "ignore" }).status === 0;
}

const started = [];
/** Starts a server through the launcher; resolves to its JSON line ({pid, base_url, log, model, ...}). */
function start(kind, args = []) {
  const info = JSON.parse(execFileSync("python3", [LAUNCHER, "start", kind, ...args], { encoding: "utf8" }));
  started.push(info.pid);
  return info;
}

const servers = {};
before(() => {
  if (installed("llama")) {
    // The model never ends an answer early here: each runs to its cap, so the answer the test stops is still
    // streaming when Stop is clicked (SmolLM2 can finish a short answer in a fifth of a second, before the click).
    servers.llama = start("llama", ["--api-key", KEY, "--ignore-eos"]);
    servers.small = start("llama", ["--ctx", "1024"]);
  }
});
after(() => {
  for (const pid of started) spawnSync("python3", [LAUNCHER, "stop", String(pid)], { stdio: "inherit" });
});

const playground = servedPlayground();
const NOT_INSTALLED = "llama-server and SmolLM2 are not installed (run tools/setup.sh)";

/** Occurrences of `pattern` in a server's log so far. */
const logCount = (info, pattern) => (readFileSync(info.log, "utf8").match(pattern) ?? []).length;

/** A fresh page with the demo repository loaded, no execution, the llama.cpp preset at `url`. */
async function llamaPage(url, { key = "", stream = false, window = "" } = {}) {
  const page = await playground.browser.ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await useRunner(page, "none");
  await page.selectOption("#provider", "llamacpp");
  // The preset's default port is llama-server's own, never the port `make play` serves the page on.
  assert.equal(await page.inputValue("#base-url"), "http://localhost:8080/v1");
  await page.fill("#base-url", url);
  if (key) await page.fill("#api-key", key);
  if (stream) await page.check("#stream");
  await page.fill("#context-window", window);
  return { page, errors };
}

test("llama-server with a key: connection test, a streamed run that shows its answer as it arrives, and Stop", async (t) => {
  if (!servers.llama) return t.skip(NOT_INSTALLED);
  const llama = servers.llama;
  const { page, errors } = await llamaPage(playground.origin, { stream: true });
  // The page's own address is not a model server: the settings say so.
  await page.fill("#base-url", `${playground.origin}/v1`);
  assert.match(await page.textContent("#base-url-hint"), /address this page is served from/);
  await page.fill("#base-url", llama.base_url);
  assert.equal(await page.locator("#base-url-hint").count(), 0);

  // Without the key the server refuses; with it the connection test passes (a preflight with Authorization).
  await page.click("#test-connection");
  assert.match(await page.textContent("#conn-status.error", { timeout: 30000 }), /API key was refused/);
  await page.fill("#api-key", KEY);
  await page.click("#test-connection");
  assert.match(await page.textContent("#conn-status.ok", { timeout: 30000 }), /Connected: local answered in \d+ ms/);

  await page.click("#run-button");
  // Text arrives while the answer streams, and the counters and status say a call is under way.
  await page.waitForFunction(() => (document.querySelector("#live-answer pre.text")?.textContent ?? "").length > 20,
    null, { timeout: 60000 });
  const during = await page.evaluate(() => ({
    calls: document.querySelector("#count-calls").textContent,
    out: document.querySelector("#count-out").textContent,
    status: document.querySelector("#run-status").textContent,
  }));
  assert.ok(Number(during.calls) >= 1, `the call in flight counts: ${JSON.stringify(during)}`);
  assert.match(during.out, /^~\d+$/, JSON.stringify(during));
  assert.ok(Number(during.out.slice(1)) > 0, JSON.stringify(during));
  assert.match(during.status, /the model is answering \(\w+\): \d+ characters/, JSON.stringify(during));
  const cancelsBefore = logCount(llama, /cancel task/g);
  await page.screenshot({ path: join(OUT, "real-llama-streaming.png") });

  await page.click("#stop-button");
  await page.waitForSelector("#run-status:has-text('Stopped.')", { timeout: 10000 });
  // The page closed the connection, and llama-server cancelled the generation.
  const deadline = Date.now() + 10000;
  while (logCount(llama, /cancel task/g) <= cancelsBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(logCount(llama, /cancel task/g) > cancelsBefore, `llama-server's log shows no cancelled task:\n${readFileSync(llama.log, "utf8").slice(-2000)}`);
  // The call the run abandoned still counts (estimated), and what arrived stays in the transcript, with why it ends
  // there.
  assert.ok(Number(await page.textContent("#count-calls")) >= 1);
  assert.match(await page.textContent("#count-out"), /^~[1-9]\d*$/);
  assert.match(await page.textContent("#interrupted-answer"), /cut: the run ended while this answer was arriving/);
  assert.ok((await page.textContent("#interrupted-answer pre.text")).length > 20);

  // The Diff tab's badges tell one story.
  await page.click("#tab-result");
  const status = await page.textContent("#result-status");
  const pill = await page.textContent("#result-stopped");
  assert.equal(await page.getAttribute("#result-stopped", "data-stop"), "cancelled");
  if (status === "NO_PATCH") assert.equal(pill.trim(), "stopped by the user: no patch made");
  else assert.equal(pill.trim(), "stopped by the user: best patch so far kept");
  await page.screenshot({ path: join(OUT, "real-llama-stopped.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("llama-server started with -c 1024 and the window typed as 1024: requests are sent, the run ends with an outcome", async (t) => {
  if (!servers.small) return t.skip(NOT_INSTALLED);
  const small = servers.small;
  const { page, errors } = await llamaPage(small.base_url, { stream: true, window: "1024" });
  const posts = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/chat/completions")) posts.push(JSON.parse(r.postData()));
  });
  // Two model calls: enough to see the first request fitted and accepted, short enough for a 135M model on one core.
  await page.click("#run-limits summary");
  await page.fill("#limit-calls-input", "2");
  await page.dispatchEvent("#limit-calls-input", "change");
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 90000 });
  const status = await page.textContent("#run-status, #run-error");
  assert.equal(await page.locator("#run-error").count(), 0, `the run failed: ${status}`);
  assert.match(status, /Stopped early, budget exhausted: 2 calls? used of 2|Done/, status);
  assert.ok(posts.length >= 1, "the first request was sent, not refused by the page");
  for (const body of posts) assert.ok(body.max_tokens >= 128 && body.max_tokens < 1024, `answer cap ${body.max_tokens}`);
  // The server counted every prompt itself, and none went over its window.
  const served = await page.evaluate(() => [...document.querySelectorAll("#transcript .ev.model .meta")].map((m) => m.textContent));
  assert.ok(served.length >= 1, "the transcript records the calls");
  for (const meta of served) {
    const [, prompt] = meta.match(/· ~?(\d+)\+/) ?? [];
    assert.ok(Number(prompt) > 0 && Number(prompt) < 1024, meta);
  }
  assert.equal(logCount(small, /exceed_context_size|exceeds the available context size/g), 0);
  await page.click("#tab-result");
  const result = await page.textContent("#result-status");
  assert.match(result, /^(NO_PATCH|APPLICABLE_PATCH)$/);
  if (result === "NO_PATCH") assert.ok((await page.textContent("#panel-result .reason")).length > 0, "NO_PATCH says why");
  await page.screenshot({ path: join(OUT, "real-llama-1024.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a LiteLLM proxy: its master key connects; without it the failed fetch is explained", async (t) => {
  if (!installed("litellm")) return t.skip("LiteLLM is not installed (run tools/setup.sh)");
  const proxy = start("litellm");
  const page = await playground.browser.ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(playground.server.url);
  await page.selectOption("#provider", "litellm");
  assert.equal(await page.inputValue("#base-url"), "http://localhost:4000/v1");
  await page.fill("#base-url", proxy.base_url);
  await page.fill("#model-name", "mock-model");
  await page.click("#test-connection");
  const refused = await page.textContent("#conn-status.error", { timeout: 30000 });
  assert.match(refused, /failed before it could answer/, refused);
  await page.fill("#api-key", proxy.api_key);
  await page.click("#test-connection");
  assert.match(await page.textContent("#conn-status.ok", { timeout: 30000 }), /Connected: mock-model answered/);
  assert.deepEqual(errors, []);
  await page.close();
});
