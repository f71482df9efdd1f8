// Shared pieces of the end-to-end and Node tests: a static server for dist/, headless Chromium, fixture files and
// zips.
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { before, after } from "node:test";
import { chromium } from "playwright-core";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const OUT = join(ROOT, "tests", "e2e", "out");
mkdirSync(OUT, { recursive: true });

/** One scratch folder per test process (browser profiles, zips), removed when the process exits. */
const SCRATCH = mkdtempSync(join(tmpdir(), "acr-test-"));
process.on("exit", () => rmSync(SCRATCH, { recursive: true, force: true }));

/**
 * Waits for a server process to print the URL it listens on (`pattern`); resolves to { url, close }. The process is
 * stopped when the test process exits, even on an exception, so that it cannot hold the test's output pipe open.
 */
async function listening(child, pattern, what) {
  const url = await new Promise((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      const m = buf.match(pattern);
      if (m) resolve(m[0]);
    });
    child.on("exit", (code) => reject(new Error(`${what} exited with ${code}`)));
  });
  const stop = () => child.kill();
  process.on("exit", stop);
  return {
    url,
    close: () => {
      process.off("exit", stop);
      stop();
    },
  };
}

/** Serves dist/ (or another folder) on a free loopback port; resolves to { url, close }. */
export async function serveDist(dir = join(ROOT, "dist")) {
  const child = spawn("python3", [join(ROOT, "tools", "serve.py"), dir, "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return listening(child, /http:\/\/127\.0\.0\.1:\d+\//, "serve.py");
}

/** The built playground served and a browser open for the test file that calls this, both closed after it. `extras`
 * names more things to start once those are up (`name: async (playground) => value`, e.g. a runner server); a value
 * with a `close()` is closed after the file too. The returned object's fields (`server`, `browser`, `origin` and
 * the extras) are set once the file's `before` hook has run. */
export function servedPlayground(extras = {}) {
  const playground = {};
  before(async () => {
    playground.server = await serveDist();
    playground.browser = await openBrowser();
    playground.origin = playground.server.url.replace(/\/$/, "");
    for (const [name, start] of Object.entries(extras)) playground[name] = await start(playground);
  });
  after(async () => {
    await playground.browser?.ctx.close();
    playground.server?.close();
    for (const name of Object.keys(extras)) await playground[name]?.close?.();
  });
  return playground;
}

/** Headless Debian Chromium; page errors are collected so tests can assert there were none. */
export async function openBrowser() {
  const ctx = await chromium.launchPersistentContext(mkdtempSync(join(SCRATCH, "browser-")), {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { ctx, page, errors };
}

/** Zips a folder under a top-level folder `top` (as GitHub's downloads are) with Python's zipfile; returns the path. */
export function zipDir(src, name, top = `${name}-main`) {
  const dir = mkdtempSync(join(SCRATCH, "zip-"));
  const out = join(dir, `${name}.zip`);
  execFileSync("python3", ["-c", `
import os, sys, zipfile
src, out, top = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            z.write(p, os.path.join(top, os.path.relpath(p, src)))
`, src, out, top]);
  return out;
}

/** Zips a fixture folder of tests/fixtures. */
export function zipFixture(name) {
  return zipDir(join(ROOT, "tests", "fixtures", name), name);
}

/** `acr index --json` on a fixture, natively: the reference the browser must agree with. */
export function nativeIndex(name) {
  const bin = join(ROOT, "target", "debug", "acr");
  return JSON.parse(execFileSync(bin, ["index", "--json", join(ROOT, "tests", "fixtures", name)], { encoding: "utf8" }));
}

/** The native CLI built by `make test-e2e`. */
export const ACR = join(ROOT, "target", "debug", "acr");

/** `acr search DIR CALL`: the text the model reads, as the CLI prints it (exit 1 on a miss is not an error). */
export function acrSearch(dir, call) {
  try {
    return execFileSync(ACR, ["search", dir, call], { encoding: "utf8" });
  } catch (e) {
    if (e.status === 1) return e.stdout;
    throw e;
  }
}

/** Whether this build of `acr` has a subcommand. */
export function acrHas(subcommand) {
  try {
    return execFileSync(ACR, ["--help"], { encoding: "utf8" }).includes(subcommand);
  } catch {
    return false;
  }
}

/** `acr serve-model --script FILE --port 0 ...extra`: a scripted chat-completions server; resolves to
 * { url, close, stderr() } (stderr: what the server has reported so far). */
export async function serveModel(script, extra = []) {
  const child = spawn(ACR, ["serve-model", "--script", script, "--port", "0", ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
    process.stderr.write(d);
  });
  return { ...(await listening(child, /http:\/\/127\.0\.0\.1:\d+\/v1/, "acr serve-model")), stderr: () => stderr };
}

/** Aborts every request that does not go to `origin`; returns the list of URLs that were attempted. */
export async function blockForeignRequests(page, origin) {
  const foreign = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return foreign;
}

/** Clicks something that triggers a download and resolves to the downloaded text and file name. */
export async function downloadText(page, selector) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  const path = await download.path();
  const { readFileSync } = await import("node:fs");
  return { name: download.suggestedFilename(), text: readFileSync(path, "utf8") };
}

/** The reproducer runner built by `make test-e2e`. */
export const RUNNER = join(ROOT, "target", "debug", "acr-runner");

/**
 * Starts `acr-runner` on a free port allowing `origin`, with extra `args`; resolves to { url, token, close }. With
 * `python`, runs use that interpreter.
 */
export async function serveRunner(origin, { python, args = [] } = {}) {
  const token = "e2e-token-0123456789abcdefghijklmnop";
  const all = ["--port", "0", "--origin", origin, ...args];
  if (python) all.push("--python", python);
  const child = spawn(RUNNER, all, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ACR_RUNNER_TOKEN: token },
  });
  const url = await new Promise((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`acr-runner exited with ${code}`)));
  });
  return { url, token, close: () => child.kill() };
}

/** A zip archive (bytes) of the given entries, `{name: string | Uint8Array}`, written with Python's zipfile. */
export function zipEntries(entries) {
  const encoded = Object.entries(entries).map(([name, data]) => [name, Buffer.from(data).toString("base64")]);
  return execFileSync("python3", ["-c", `
import base64, io, json, sys, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in json.load(sys.stdin):
        z.writestr(name, base64.b64decode(data))
sys.stdout.buffer.write(buf.getvalue())
`], { input: JSON.stringify(encoded), maxBuffer: 64 << 20 });
}

/** Every file under tests/fixtures/<name>, as `{relative/path: Buffer}` in sorted order. */
export function fixtureFiles(name) {
  const root = join(ROOT, "tests", "fixtures", name);
  const out = {};
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[relative(root, p).split(sep).join("/")] = readFileSync(p);
    }
  };
  walk(root);
  return out;
}

/** Chooses where the page runs reproducers: "tab" (Pyodide, the default), "server" or "none". */
export async function useRunner(page, kind) {
  const details = page.locator("details.runner");
  const wasOpen = await details.evaluate((d) => d.open);
  if (!wasOpen) await page.click("details.runner summary");
  await page.selectOption("#runner-kind", kind);
  if (!wasOpen) await page.click("details.runner summary");
}

/**
 * Repairs the loaded repository with the runner server `runner` (from `serveRunner`) executing, and waits for the
 * run's end. Resolves to `{status, runs}`: the status line, and the transcript's executions (a locator, the first on
 * the original), with the transcript shown.
 */
export async function repairWithServer(page, runner) {
  await useRunner(page, "server");
  await page.click("details.runner summary");
  await page.fill("#runner-url", runner.url);
  await page.fill("#runner-token", runner.token);
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 120000 });
  const status = await page.textContent("#run-status");
  await page.click("#tab-transcript");
  return { status, runs: page.locator("#transcript .ev.run") };
}

/** Runs a `RunRequest` in the page's Python (the runner the agent uses); resolves to the `RunOutcome`. */
export function runInTab(page, request) {
  return page.evaluate((r) => window.acrRunInTab(r), request);
}

/** CPython with pytest, made by tools/setup.sh for the differential suite. */
export const CPYTHON = join(ROOT, "tests", ".venv", "bin", "python3");

/** Sends a `RunRequest` to an `acr-runner` started by `serveRunner`; resolves to the `RunOutcome`. */
export async function runOnServer(runner, request) {
  const response = await fetch(`${runner.url}/run`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${runner.token}` },
    body: JSON.stringify(request),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`acr-runner refused the request (${response.status}): ${body.error}`);
  return body;
}

/** Wheels fetched by tools/setup.sh from the Python package registry (micropip, pytest and its dependencies). */
export const WHEELS = join(ROOT, "tests", "wheels");

/** pytest's wheels and its dependencies' (everything in tests/wheels but micropip). */
export function pytestWheels() {
  return readdirSync(WHEELS).filter((f) => f.endsWith(".whl") && !f.startsWith("micropip-")).map((f) => join(WHEELS, f));
}

/**
 * Serves tests/wheels as a package index (PEP 503 pages at /simple/<name>/, files at /files/<file>), with CORS, as
 * a private index would; resolves to { url, close }, where url is the index's base for micropip.
 */
export async function servePackageIndex() {
  const files = readdirSync(WHEELS).filter((f) => f.endsWith(".whl"));
  const byName = {};
  for (const f of files) (byName[f.split("-")[0].toLowerCase().replace(/[-_.]+/g, "-")] ??= []).push(f);
  const server = createServer((req, res) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    const simple = req.url.match(/^\/simple\/([^/]+)\/?$/);
    const file = req.url.match(/^\/files\/([^/?#]+)$/);
    if (simple && byName[simple[1].toLowerCase()]) {
      const links = byName[simple[1].toLowerCase()].map((f) => {
        const sha = createHash("sha256").update(readFileSync(join(WHEELS, f))).digest("hex");
        return `<a href="/files/${f}#sha256=${sha}">${f}</a>`;
      });
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<!DOCTYPE html><html><body>${links.join("\n")}</body></html>`);
    } else if (file && files.includes(file[1])) {
      res.writeHead(200, { "Content-Type": "application/octet-stream" });
      res.end(readFileSync(join(WHEELS, file[1])));
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { url: `${base}/simple`, origin: base, close: () => server.close() };
}

/** The demo repository's files, as the page's demo button loads them. */
export function demoFiles() {
  const root = join(ROOT, "web", "demo");
  const out = {};
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (p.endsWith(".py")) out[relative(root, p).split(sep).join("/")] = readFileSync(p, "utf8");
    }
  };
  walk(root);
  return out;
}
