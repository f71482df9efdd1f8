// Java in the playground: the Java demo loads (counts per language), the explorer answers on Java as `acr search`
// does, and the demo model repairs it with a note that execution in the tab runs Python, JavaScript and TypeScript only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import {
  ROOT, OUT, RUNNER, blockForeignRequests, acrSearch, repairWithServer, serveRunner, servedPlayground,
} from "./harness.mjs";

/** JUnit's console launcher, where Debian's `junit5` puts it (`tools/setup.sh` installs it with a JDK). */
const JUNIT_JAR = "/usr/share/java/junit-platform-console-standalone.jar";
const hasJava = () => {
  try {
    execFileSync("javac", ["-version"], { stdio: "ignore" });
    return existsSync(JUNIT_JAR);
  } catch {
    return false;
  }
};

const playground = servedPlayground({
  runner: async ({ origin }) => (existsSync(RUNNER) && hasJava() ? serveRunner(origin) : undefined),
});

const DEMO = join(ROOT, "web", "demo-java");

test("the Java demo loads, is searched as on the command line and is repaired without execution", async () => {
  const { page, errors } = playground.browser;
  const foreign = await blockForeignRequests(page, playground.server.url.replace(/\/$/, ""));
  await page.goto(playground.server.url);
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
  assert.match(await page.textContent("#transcript .ev.note >> nth=0"), /Java repository, and execution in this tab runs Python, JavaScript and TypeScript only/);
  await page.locator(".tabs-card").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(OUT, "java-demo.png") });

  // Back to the Python demo: its own issue and script again.
  await page.click("#demo-button");
  await page.waitForSelector("#stat-languages:has-text('Python')");
  assert.match(await page.inputValue("#issue"), /Cart\.total\(\) ignores quantities/);
  assert.deepEqual(foreign, [], "no request left the page's origin");
  await page.unroute("**/*"); // the next test reaches the runner server, on another origin
  assert.deepEqual(errors, []);
});

test("with the runner server, the Java demo is validated by its JUnit tests", async (t) => {
  if (!playground.runner) return t.skip(`no runner binary at ${RUNNER}, or no JDK with JUnit (${JUNIT_JAR})`);
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  await page.click("#demo-java-button");
  await page.waitForSelector("#stats");
  const { status, runs } = await repairWithServer(page, playground.runner);
  assert.match(status, /patch, validated by execution/);
  assert.equal(await page.locator("#transcript .ev.note:has-text('execution in this tab runs')").count(), 0);
  // The project's tests reproduce the issue: the test of a book due today fails on the original, all pass after.
  assert.match(await runs.first().locator("summary").textContent(), /exit 1 .*on the runner at http/);
  assert.match(await runs.first().textContent(), /FAIL library\.LibraryTest/);
  assert.match(await runs.last().locator("summary").textContent(), /exit 0 .*on the runner at http/);
  assert.deepEqual(errors, []);
});
