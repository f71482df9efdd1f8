// The tab's Python against CPython: every script of tests/fixtures/differential/cases.mjs runs in Pyodide (headless
// Chromium, through the page's runner) and with CPython through `acr-runner`, and the verdict the agent uses must
// agree: the exit code, whether the bug is reproduced (non-zero exit with AssertionError in stderr), whether the
// time limit killed it, and whether the output was cut. Known differences must still differ (the README lists them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import {
  RUNNER, CPYTHON, blockForeignRequests, serveRunner, runOnServer, runInTab, pytestWheels, demoFiles, fixtureFiles, servedPlayground,
} from "./harness.mjs";
import { CASES } from "../fixtures/differential/cases.mjs";

const playground = servedPlayground({
  foreign: async ({ browser, origin }) => blockForeignRequests(browser.page, origin),
  runner: async ({ origin }) => (existsSync(RUNNER) && existsSync(CPYTHON) ? serveRunner(origin, { python: CPYTHON }) : undefined),
});

const REPOS = {
  demo: demoFiles(),
  minirepo: Object.fromEntries(Object.entries(fixtureFiles("minirepo")).map(([p, b]) => [p, b.toString("utf8")])),
};

/** What the agent decides from a run. */
function verdict(outcome) {
  return {
    exit_code: outcome.exit_code,
    reproduced: outcome.exit_code !== 0 && !outcome.timed_out && outcome.stderr.includes("AssertionError"),
    timed_out: outcome.timed_out,
    truncated: outcome.truncated,
  };
}

test("the tab's Python and CPython agree on every script's verdict", async (t) => {
  if (!playground.runner) return t.skip(`needs ${RUNNER} (make test-e2e builds it) and ${CPYTHON} (tools/setup.sh makes it)`);
  assert.ok(CASES.length >= 40, `${CASES.length} cases`);
  const { page, errors } = playground.browser;
  await page.goto(playground.server.url);
  // pytest in the tab comes from its wheels, dropped as a user would; CPython has the same version (tests/.venv).
  await page.click("details.runner summary");
  await page.setInputFiles("#wheels", pytestWheels());
  await page.waitForSelector(`#wheel-list li:nth-child(${pytestWheels().length})`);
  const rows = [];
  for (const c of CASES) {
    const request = {
      files: { ...REPOS[c.repo], ...c.files },
      patch: c.patch ?? "",
      command: c.command,
      timeout_secs: c.timeout_secs ?? 20,
    };
    // Both at once: each side waits on its own interpreter (and the endless loops on their time limits).
    const [tab, cpython] = await Promise.all([runInTab(page, request), runOnServer(playground.runner, request)]);
    const [a, b] = [verdict(tab), verdict(cpython)];
    const agree = JSON.stringify(a) === JSON.stringify(b);
    rows.push({ c, tab, cpython, a, b, agree });
  }
  const width = Math.max(...CASES.map((c) => c.name.length));
  const show = (v) => [`exit ${v.exit_code ?? "none"}`, v.reproduced && "reproduced", v.timed_out && "timed out",
    v.truncated && "cut"].filter(Boolean).join(", ");
  console.log(`case${" ".repeat(width - 4)}  tab (Pyodide)                 CPython (acr-runner)`);
  for (const r of rows) {
    const mark = r.c.differs ? (r.agree ? "SAME?" : "differs as listed") : r.agree ? "" : "DISAGREE";
    console.log(`${r.c.name.padEnd(width)}  ${show(r.a).padEnd(29)} ${show(r.b).padEnd(29)} ${mark}`);
  }
  const checked = rows.filter((r) => !r.c.differs);
  const agreed = checked.filter((r) => r.agree).length;
  const known = rows.length - checked.length;
  console.log(`[differential] ${agreed}/${checked.length} scripts agree; ${known} known differences`);
  for (const r of checked.filter((r) => !r.agree)) {
    console.log(`--- ${r.c.name}\ntab stderr:\n${r.tab.stderr.slice(-1500)}`);
    console.log(`CPython stderr:\n${r.cpython.stderr.slice(-1500)}`);
  }
  assert.equal(agreed, checked.length, "every script's verdict agrees");
  for (const r of rows.filter((r) => r.c.differs)) {
    assert.ok(!r.agree, `${r.c.name} no longer differs (${r.c.differs}): update the README's list`);
  }
  // Commands with nothing to run are refused by both, so the agent reports a refusal rather than an exit code.
  for (const command of ["", "   ", "python3 'r.py"]) {
    const request = { files: REPOS.demo, patch: "", command, timeout_secs: 5 };
    await assert.rejects(runInTab(page, request), /refused the request: bad command/, `tab: ${JSON.stringify(command)}`);
    await assert.rejects(runOnServer(playground.runner, request), /refused the request \(400\): bad command/,
      `CPython: ${JSON.stringify(command)}`);
  }
  assert.deepEqual(playground.foreign, [], "nothing left the page");
  assert.deepEqual(errors, []);
});
