// Benchmark (not a test): a real small model through the playground. SmolLM2-135M on llama.cpp's llama-server
// (started by tools/model_servers.py) repairs the demo repository in headless Chromium, driven as a user would: the
// llama.cpp preset, the base URL typed, streaming on, a budget under Limits, Run, then the transcript downloaded from
// the page (web/src/run.rs, `transcript_json`: the outcome with `stopped`, the usage, the calls and every event).
// Prints the model calls, tokens, seconds and outcome of each run, and per stage how many answers were well formed:
// the figures tests/bench/small_model.py prints for `acr run`, so that the tab and the CLI can be set side by side.
//
//   node tests/bench/tab_small_model.mjs [--runs N] [--max-calls N] [--max-seconds S] [--runner none|tab]
//                                        [--screenshot PATH]
//
// Needs `make web` (dist/) and tools/setup.sh (the servers); without the servers it says "skipped" and exits 0.
// Reproducers are not executed by default (`--runner none`), as `acr run` without `--runner` in the CLI bench;
// `--runner tab` runs them with Python in the tab. The page after the first run is saved as a screenshot
// (tests/e2e/out/bench-small-model.png unless --screenshot says where): the counters and the transcript down to the
// first cut answer, opened.
//
// When is an answer well formed? The rule of tests/bench/small_model.py (its docstring), kept word for word and
// implemented again below (`wellFormed`); change both together. Read from the transcript, each "model" event with
// the event that follows it:
//   - search: the next "proxy" event was read from the answer itself (source "deterministic", or "tools" for tool
//     calls) and has at least one call or location. An answer the proxy model had to rewrite is not well formed.
//   - proxy: the next "proxy" event (source "model") has at least one call or location and no problems.
//   - patch: the next "patch" event's status says the answer held edits in the format (anything but NO_PATCH and
//     RAW_PATCH_BUT_UNPARSED; an edit that does not match the code still counts as well formed).
//   - every other stage (reproducer, review, select...): the answer is not empty and was not cut short.
// An answer that was cut ("cut" set: cap, time, loop, broken, failed) is counted apart as well.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, OUT, openBrowser, serveDist, useRunner, downloadText } from "../e2e/harness.mjs";

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "1" },
    "max-calls": { type: "string", default: "20" },
    "max-seconds": { type: "string", default: "240" },
    runner: { type: "string", default: "none" },
    screenshot: { type: "string", default: join(OUT, "bench-small-model.png") },
  },
});
const runs = Number(opts.runs);
const maxCalls = Number(opts["max-calls"]);
const maxSeconds = Number(opts["max-seconds"]);
const LAUNCHER = join(ROOT, "tools", "model_servers.py");
const FORMED_PATCH = new Set(["RAW_PATCH_BUT_UNMATCHED", "MATCHED_BUT_EMPTY_ORIGIN", "MATCHED_BUT_EMPTY_DIFF",
  "APPLICABLE_PATCH"]);

/** Whether the answer of the "model" event `model` is well formed, given the events after it (see above; the same
 * as `well_formed` in tests/bench/small_model.py). */
function wellFormed(model, following) {
  const nextOf = (kind) => {
    for (const e of following) {
      if (e.event === kind) return e;
      if (e.event === "model") return null; // the next answer: nothing read this one
    }
    return null;
  };
  const some = (list) => Array.isArray(list) && list.length > 0;
  switch (model.stage) {
    case "search": {
      const proxy = nextOf("proxy");
      return Boolean(proxy && ["deterministic", "tools"].includes(proxy.source)
        && (some(proxy.calls) || some(proxy.locations)));
    }
    case "proxy": {
      const proxy = nextOf("proxy");
      return Boolean(proxy && (some(proxy.calls) || some(proxy.locations)) && !some(proxy.problems));
    }
    case "patch": {
      const patch = nextOf("patch");
      return Boolean(patch && FORMED_PATCH.has(patch.status));
    }
    default:
      return Boolean((model.answer ?? "").trim()) && !model.cut;
  }
}

/** Per stage: [answers, well formed, cut]. */
function stagesOf(events) {
  const stages = new Map();
  events.forEach((e, i) => {
    if (e.event !== "model") return;
    const stage = e.stage ?? "?";
    const counts = stages.get(stage) ?? [0, 0, 0];
    counts[0] += 1;
    counts[1] += wellFormed(e, events.slice(i + 1)) ? 1 : 0;
    counts[2] += e.cut ? 1 : 0;
    stages.set(stage, counts);
  });
  return stages;
}

if (spawnSync("python3", [LAUNCHER, "check", "llama"], { stdio: "ignore" }).status !== 0) {
  console.log("tab small model bench: skipped (the servers are not installed; run tools/setup.sh)");
  process.exit(0);
}
const started = spawnSync("python3", [LAUNCHER, "start", "llama"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
if (started.status === 3) {
  console.log("tab small model bench: skipped (the servers are not installed; run tools/setup.sh)");
  process.exit(0);
}
if (started.status !== 0) {
  console.error("tab small model bench: llama-server did not start");
  process.exit(1);
}
const llama = JSON.parse(started.stdout);
const stopServer = () => spawnSync("python3", [LAUNCHER, "stop", String(llama.pid)], { stdio: "inherit" });

/** One run in a fresh page: the user's path, then the downloaded transcript and what the counters show. */
async function oneRun(browser, server, n) {
  const page = await browser.ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await useRunner(page, opts.runner);
  await page.selectOption("#provider", "llamacpp");
  await page.fill("#base-url", llama.base_url);
  await page.check("#stream");
  await page.click("#run-limits summary");
  for (const [input, value] of [["#limit-tries", 1], ["#limit-calls-input", maxCalls], ["#limit-seconds-input", maxSeconds]]) {
    await page.fill(input, String(value));
    await page.dispatchEvent(input, "change");
  }
  await page.click("#run-button");
  // The budget is checked before every call: the run ends at most one answer (at most --timeout) past it.
  await page.waitForSelector("#run-status.ok, #run-error, #run-status:has-text('Stopped.')",
    { timeout: (maxSeconds + 300) * 1000 });
  // The page shows the Diff tab at the end of a run; the download is on the Transcript tab.
  await page.click("#tab-transcript");
  const { text } = await downloadText(page, "#download-transcript");
  const transcript = JSON.parse(text);
  const counters = await page.evaluate(() => Object.fromEntries(["calls", "in", "out", "time"]
    .map((k) => [k, document.querySelector(`#count-${k}`)?.textContent ?? ""])));
  const statusLine = await page.textContent("#run-status, #run-error");
  const file = join(tmpdir(), `acr-bench-tab-small-${process.pid}-${n}.json`);
  writeFileSync(file, text);
  if (n === 1) await screenshot(page, opts.screenshot);
  await page.close();
  return {
    seconds: (transcript.elapsed_ms ?? 0) / 1000,
    calls: transcript.model_calls ?? 0,
    prompt: transcript.usage?.prompt_tokens ?? 0,
    completion: transcript.usage?.completion_tokens ?? 0,
    status: transcript.outcome?.status ?? transcript.run_status ?? "?",
    stopped: transcript.outcome?.stopped?.kind ?? "-",
    stages: stagesOf(transcript.events ?? []),
    counters, statusLine: statusLine.trim(), errors, file,
  };
}

/** The page after the run, 1280 px wide: from the limits (the counters and status line below them) down to the
 * first cut answer, opened (or the last answer when none was cut), as one picture of the page's length. */
async function screenshot(page, path) {
  const target = (await page.$("#transcript .ev.model.cut")) ?? (await page.$("#interrupted-answer"))
    ?? (await page.$$("#transcript .ev.model")).at(-1);
  const clip = await page.evaluate((el) => {
    el?.querySelectorAll("details").forEach((d) => { d.open = true; });
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { top: r.top + window.scrollY, bottom: r.bottom + window.scrollY };
    };
    const top = box(document.querySelector("#run-limits")).top - 12;
    const bottom = box(el ?? document.querySelector("#transcript")).bottom + 12;
    return { x: 0, y: top, width: document.documentElement.clientWidth, height: Math.min(bottom - top, 3000) };
  }, target);
  mkdirSync(dirname(resolve(path)), { recursive: true });
  await page.screenshot({ path, fullPage: true, clip });
}

const server = await serveDist();
const browser = await openBrowser();
const results = [];
try {
  for (let n = 1; n <= runs; n++) results.push(await oneRun(browser, server, n));
} finally {
  await browser.ctx.close();
  server.close();
  stopServer();
}

console.log(`SmolLM2-135M-Instruct (Q4_1) on llama-server, 1 thread, streamed; the playground in headless Chromium on `
  + `the demo repository, Limits: tries 1, model calls ${maxCalls}, seconds ${maxSeconds}; runner ${opts.runner}`);
console.log(`${"run".padStart(3)}  ${"calls".padStart(5)}  ${"tokens in".padStart(9)}  ${"out".padStart(6)}  `
  + `${"seconds".padStart(7)}  ${"status".padEnd(24)}  stopped`);
results.forEach((r, i) => {
  console.log(`${String(i + 1).padStart(3)}  ${String(r.calls).padStart(5)}  ${String(r.prompt).padStart(9)}  `
    + `${String(r.completion).padStart(6)}  ${r.seconds.toFixed(1).padStart(7)}  ${r.status.padEnd(24)}  ${r.stopped}`);
});
const total = new Map();
for (const r of results) {
  for (const [stage, counts] of r.stages) {
    const t = total.get(stage) ?? [0, 0, 0];
    total.set(stage, t.map((v, i) => v + counts[i]));
  }
}
console.log();
console.log(`${"stage".padEnd(13)}  ${"answers".padStart(7)}  ${"well formed".padStart(11)}  ${"share".padStart(6)}  `
  + `${"cut".padStart(4)}`);
for (const [stage, [answers, formed, cut]] of [...total].sort((a, b) => b[1][0] - a[1][0])) {
  const share = `${Math.round((100 * formed) / answers)}%`;
  console.log(`${stage.padEnd(13)}  ${String(answers).padStart(7)}  ${String(formed).padStart(11)}  `
    + `${share.padStart(6)}  ${String(cut).padStart(4)}`);
}
console.log();
results.forEach((r, i) => console.log(`run ${i + 1}: "${r.statusLine}"; counters ${r.counters.calls} calls, `
  + `${r.counters.in} in, ${r.counters.out} out, ${r.counters.time} s`
  + (r.errors.length ? `; page errors: ${r.errors.join(" | ")}` : "")));
console.log(`(transcripts: ${results.map((r) => r.file).join(", ")}; screenshot: ${opts.screenshot})`);
if (results.some((r) => r.errors.length)) process.exitCode = 1;
