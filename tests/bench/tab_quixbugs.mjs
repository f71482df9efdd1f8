// Benchmark (not a test): a QuixBugs program repaired in the playground by a real open model, as a user would do
// it. tests/bench/quixbugs.py makes the task (the buggy program alone, the issue from its first failing test case);
// the repository is dropped on the page as a zip, the issue typed, the llama.cpp preset chosen with the server's
// URL (Qwen2.5-Coder-1.5B-Instruct on llama-server, started by tools/model_servers.py), the edit format left at
// `auto`, the reproducer run in the tab (Python in WebAssembly), Run. The diff is downloaded from the page, applied
// to a copy of the program and QuixBugs' own tests run on it. Prints the outcome, calls, tokens and seconds, and
// saves a screenshot of the page after the run (docs/playground-quixbugs.png unless --screenshot says where).
//
//   node tests/bench/tab_quixbugs.mjs [--task gcd] [--model qwen2.5-coder-1.5b|smollm2] [--threads N]
//                                     [--max-seconds S] [--screenshot PATH]
//
// Needs `make web` (dist/), tools/setup.sh test (llama-server, tests/.venv) and the bench's model
// (`python3 tests/bench/quixbugs.py --setup-only`).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, openBrowser, serveDist, useRunner, downloadText, zipDir } from "../e2e/harness.mjs";

const { values: opts } = parseArgs({
  options: {
    task: { type: "string", default: "gcd" },
    model: { type: "string", default: "qwen2.5-coder-1.5b" },
    threads: { type: "string", default: "2" },
    "max-seconds": { type: "string", default: "900" },
    screenshot: { type: "string", default: join(ROOT, "docs", "playground-quixbugs.png") },
  },
});
const LAUNCHER = join(ROOT, "tools", "model_servers.py");
const BENCH = join(ROOT, "tests", "bench", "quixbugs.py");

// The task: tests/bench/quixbugs.py's own repository and issue, so the CLI and the tab get the same.
const work = mkdtempSync(join(tmpdir(), "acr-tab-quixbugs-"));
execFileSync("python3", [BENCH, "--make-task", opts.task, "--into", work], { stdio: "inherit" });
const repo = join(work, "repo");
const issue = readFileSync(join(work, "ISSUE.md"), "utf8");

const started = spawnSync("python3", [LAUNCHER, "start", "llama", "--model", opts.model, "--ctx", "8192",
  "--threads", opts.threads, "--wait", "300"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
if (started.status !== 0) {
  console.error(`tab quixbugs bench: llama-server did not start (exit ${started.status}); run tools/setup.sh test`);
  process.exit(1);
}
const llama = JSON.parse(started.stdout);
const server = await serveDist();
const browser = await openBrowser();
let result;
try {
  const page = await browser.ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.setInputFiles("#zip-input", zipDir(repo, opts.task));
  await page.waitForSelector("#stats");
  await page.fill("#issue", issue);
  await useRunner(page, "tab");
  await page.selectOption("#provider", "llamacpp");
  await page.fill("#base-url", llama.base_url);
  await page.fill("#model-name", llama.model);
  await page.fill("#context-window", "8192");
  await page.click("#run-limits summary");
  await page.fill("#limit-seconds-input", opts["max-seconds"]);
  await page.dispatchEvent("#limit-seconds-input", "change");
  const begun = Date.now();
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error, #run-status:has-text('Stopped.')",
    { timeout: (Number(opts["max-seconds"]) + 600) * 1000 });
  const seconds = (Date.now() - begun) / 1000;
  console.log(`page: ${(await page.textContent("#run-status").catch(() => "")) ?? ""} ${(await page.textContent("#run-error").catch(() => "")) ?? ""}`.trim());
  await page.click("#tab-transcript");
  const { text } = await downloadText(page, "#download-transcript");
  const transcript = JSON.parse(text);
  await page.click("#tab-result");
  const diff = transcript.outcome?.diff ?? transcript.diff ?? "";
  const status = transcript.outcome?.status ?? transcript.run_status ?? "?";
  // The page's diff applied to the program, then QuixBugs' tests.
  const applied = diff.trim() !== ""
    && spawnSync("patch", ["-p1", "--no-backup-if-mismatch", "-s"], { cwd: repo, input: diff }).status === 0;
  const verdict = applied
    ? spawnSync("python3", ["-c", `
import sys
sys.argv = ["quixbugs.py"]
sys.path.insert(0, ${JSON.stringify(join(ROOT, "tests", "bench"))})
import quixbugs
ok, last = quixbugs.resolved(${JSON.stringify(opts.task)}, ${JSON.stringify(repo)})
print(("resolved: " if ok else "not resolved: ") + last)
sys.exit(0 if ok else 1)`], { encoding: "utf8" })
    : { status: 1, stdout: "not resolved: no diff applied" };
  mkdirSync(dirname(resolve(opts.screenshot)), { recursive: true });
  await page.screenshot({ path: opts.screenshot, fullPage: false });
  const file = join(work, "transcript.json");
  writeFileSync(file, text);
  result = {
    status, seconds, resolved: verdict.status === 0, verdict: verdict.stdout.trim(),
    calls: transcript.model_calls ?? 0, prompt: transcript.usage?.prompt_tokens ?? 0,
    completion: transcript.usage?.completion_tokens ?? 0, errors, file,
  };
} finally {
  await browser.ctx.close();
  server.close();
  spawnSync("python3", [LAUNCHER, "stop", String(llama.pid)], { stdio: "inherit" });
}
console.log(`${llama.model} on llama-server (-c 8192 -t ${opts.threads}); the playground in headless Chromium, `
  + `QuixBugs ${opts.task}, edit format auto, reproducer in the tab, time limit ${opts["max-seconds"]} s`);
console.log(`${result.verdict}; status ${result.status}; ${result.calls} calls, ${result.prompt} tokens in, `
  + `${result.completion} out, ${result.seconds.toFixed(0)} s; page errors: ${result.errors.length}`);
console.log(`(transcript: ${result.file}; screenshot: ${opts.screenshot})`);
process.exit(result.resolved ? 0 : 1);
