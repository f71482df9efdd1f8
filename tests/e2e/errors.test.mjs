// Failures are explained where they happen: unreachable endpoints, CORS refusals, refused keys, HTTP errors,
// missing settings. The page never goes blank.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { OUT, servedPlayground } from "./harness.mjs";

/** A local server that answers every request with a fixed status and body, with or without CORS headers. */
function fakeServer() {
  return new Promise((resolve) => {
    const s = createServer((req, res) => {
      const cors = !req.url.startsWith("/nocors");
      const headers = { "Content-Type": "application/json" };
      if (cors) Object.assign(headers, {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Headers": "authorization, content-type",
      });
      if (req.method === "OPTIONS") { res.writeHead(204, headers); return res.end(); }
      req.resume();
      req.on("end", () => {
        if (req.url.startsWith("/auth")) {
          res.writeHead(401, headers);
          return res.end(JSON.stringify({ error: { message: "Incorrect API key provided" } }));
        }
        if (req.url.startsWith("/slow")) return; // never answers
        if (req.url.startsWith("/missing")) {
          res.writeHead(404, headers);
          return res.end(JSON.stringify({ error: { message: "model 'nope' not found" } }));
        }
        res.writeHead(200, headers);
        res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "ok" } }] }));
      });
    });
    s.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${s.address().port}`, close: () => { s.closeAllConnections(); s.close(); } }));
  });
}

const playground = servedPlayground({ fake: fakeServer });

async function useEndpoint(page, baseUrl, model = "some-model") {
  await page.selectOption("#provider", "custom");
  await page.fill("#base-url", baseUrl);
  await page.fill("#model-name", model);
}

async function connectionError(page) {
  await page.click("#test-connection");
  return page.textContent("#conn-status.error", { timeout: 20000 });
}

test("a wrong endpoint gives a clear error, in the connection test and in a run", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await useEndpoint(page, "http://127.0.0.1:9/v1");
  const message = await connectionError(page);
  assert.match(message, /could not reach the model server/i);
  assert.match(message, /http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
  assert.match(message, /CORS/);
  await page.click("#run-button");
  const runError = await page.textContent("#run-error", { timeout: 20000 });
  assert.match(runError, /could not reach the model server/i);
  await page.screenshot({ path: join(OUT, "error-endpoint.png") });
  // The rest of the page is still there.
  assert.ok(await page.isVisible("#stats"));
  assert.deepEqual(errors, []);
});

test("CORS refusals, refused keys and HTTP errors are told apart where the browser allows it", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await useEndpoint(page, `${playground.fake.url}/auth/v1`);
  assert.match(await connectionError(page), /The API key was refused: Incorrect API key provided\. Check the API key\./);
  await useEndpoint(page, `${playground.fake.url}/missing/v1`);
  const missing = await connectionError(page);
  // A 404 that names the model is read as a model the server does not know.
  assert.match(missing, /does not know this model: model 'nope' not found/);
  assert.match(missing, /Check the model name/);
  // A server that answers but sends no CORS headers looks like a network failure to the page; the message says so.
  await useEndpoint(page, `${playground.fake.url}/nocors/v1`);
  assert.match(await connectionError(page), /does not allow requests from this page .* CORS/);
  await useEndpoint(page, `${playground.fake.url}/v1`);
  await page.click("#test-connection");
  assert.match(await page.textContent("#conn-status.ok"), /Connected: some-model answered/);
  assert.deepEqual(errors, []);
});

test("missing settings and a missing repository are explained before anything is sent", async () => {
  const { page } = playground.browser;
  await page.goto(playground.server.url);
  await page.click("#run-button");
  assert.match(await page.textContent("#run-error"), /Load a repository first/);
  await useEndpoint(page, "localhost:11434", "m");
  assert.match(await connectionError(page), /must start with http:\/\/ or https:\/\//);
  await useEndpoint(page, "http://localhost:11434/v1", "");
  assert.match(await connectionError(page), /Enter a model name/);
  // Presets fill in the base URL.
  await page.selectOption("#provider", "ollama");
  assert.equal(await page.inputValue("#base-url"), "http://localhost:11434/v1");
  await page.selectOption("#provider", "vllm");
  assert.equal(await page.inputValue("#base-url"), "http://localhost:8000/v1");
  await page.selectOption("#provider", "openai");
  assert.equal(await page.inputValue("#base-url"), "https://api.openai.com/v1");
});

test("the API key stays in memory unless the user asks to remember it", async () => {
  const { page } = playground.browser;
  await page.goto(playground.server.url);
  await useEndpoint(page, "http://localhost:8000/v1", "m");
  await page.fill("#api-key", "sk-test-secret");
  assert.equal(await page.evaluate(() => JSON.stringify(localStorage)).then((s) => s.includes("sk-test")), false);
  await page.check("#remember");
  assert.ok(await page.evaluate(() => localStorage.getItem("acr-wasm.settings")).then((s) => s.includes("sk-test-secret")));
  await page.reload();
  assert.equal(await page.inputValue("#api-key"), "sk-test-secret");
  await page.uncheck("#remember");
  assert.equal(await page.evaluate(() => localStorage.getItem("acr-wasm.settings")), null);
  await page.reload();
  assert.equal(await page.inputValue("#provider"), "demo");
});

test("stop abandons a model call that is taking long", async () => {
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await useEndpoint(page, `${playground.fake.url}/slow/v1`);
  await page.click("#run-button");
  await page.waitForSelector("#run-status:has-text('Running')");
  const started = Date.now();
  await page.click("#stop-button");
  await page.waitForSelector("#run-status:has-text('Stopped.')", { timeout: 20000 });
  console.log(`[stop] stopped ${Date.now() - started} ms after the click, with the model call still unanswered`);
  assert.deepEqual(errors, []);
});
