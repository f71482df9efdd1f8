// Python in the tab, measured in headless Chromium: the cold start (the first execution after the page loads), a
// warm reproducer run on the demo, a pytest run on the demo, the bytes downloaded, and a second page load, which
// must take Pyodide from the browser's cache. Prints figures; asserts nothing. Run by `make bench` (after make web).
// Usage: node tests/bench/tab-python.mjs [RUNS]
import { serveDist, openBrowser, runInTab, pytestWheels, demoFiles } from "../e2e/harness.mjs";

const RUNS = Number(process.argv[2] ?? 10);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const REPRODUCER = `from inventory import Cart, Item

cart = Cart()
cart.add(Item("A1", "apple", 50), units=3)
total = cart.total()
assert total == 150, f"expected 150 cents for three apples, got {total}"
`;

const server = await serveDist();
const { ctx, page } = await openBrowser(); // a fresh profile: an empty cache
const traffic = [];
page.on("requestfinished", async (request) => {
  const sizes = await request.sizes().catch(() => null);
  traffic.push({ url: request.url(), bytes: sizes ? sizes.responseBodySize + sizes.responseHeadersSize : 0 });
});
const reproduce = {
  files: { ...demoFiles(), "reproducer.py": REPRODUCER },
  command: "python3 reproducer.py",
  timeout_secs: 60,
};
const spareReady = () => page.evaluate(() => window.acrTabPythonReadiness()[1]);

/** Loads the page and times its first execution; returns [ms, outcome, bytes by kind]. */
async function coldStart(label) {
  traffic.length = 0;
  await page.goto(server.url);
  await page.waitForSelector("#demo-button");
  const started = Date.now();
  const outcome = await runInTab(page, reproduce);
  const ms = Date.now() - started;
  await page.waitForTimeout(500); // let the last requestfinished events arrive
  const pyodide = traffic.filter((t) => t.url.includes("/pyodide/")).reduce((n, t) => n + t.bytes, 0);
  const all = traffic.reduce((n, t) => n + t.bytes, 0);
  console.log(`${label}: first execution ${ms} ms after the page loaded (exit ${outcome.exit_code}); downloaded ` +
    `${all.toLocaleString("en")} B in all, ${pyodide.toLocaleString("en")} B of it Pyodide ` +
    `(${traffic.filter((t) => t.url.includes("/pyodide/")).length} requests)`);
  return outcome;
}

async function warmRuns(label, request, runs) {
  // Wait for the spare worker to finish starting, so it does not share the CPU with the measured runs.
  for (let i = 0; i < 100 && !(await spareReady()); i++) await page.waitForTimeout(100);
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const started = Date.now();
    last = await runInTab(page, request);
    times.push(Date.now() - started);
  }
  const [min, max] = [Math.min(...times), Math.max(...times)];
  console.log(`${label}: median ${median(times)} ms, min ${min} ms, max ${max} ms over ${runs} runs ` +
    `(exit ${last.exit_code}; the runner's own duration ${last.duration_ms} ms)`);
}

await coldStart("cold start, empty cache");
await warmRuns("warm reproducer run on the demo", reproduce, RUNS);
await coldStart("second page load, same browser");

// pytest: its wheels dropped in the settings, then the demo's failing test.
await page.click("details.runner summary");
await page.setInputFiles("#wheels", pytestWheels());
await page.waitForSelector(`#wheel-list li:nth-child(${pytestWheels().length})`);
const installing = Date.now();
await page.click("#start-python");
await page.waitForSelector("#python-status .ok", { timeout: 180000 });
console.log(`start with pytest's ${pytestWheels().length} wheels installed: ${Date.now() - installing} ms`);
const pytest = { files: demoFiles(), command: "python3 -m pytest -q tests/test_cart.py", timeout_secs: 60 };
await warmRuns("pytest run on the demo", pytest, Math.max(3, Math.floor(RUNS / 2)));

await ctx.close();
server.close();
