// A zip of more than 100 MiB of Python sources dropped into the tab (headless Chromium, the worker pool): whether it
// loads, drop to ready, and the page's wasm memory then; beside it `acr index` natively on the same tree, unpacked.
// The zip is built from the trees tools/bench_acr_index.py downloads into target/bench-corpora: their Python files,
// copied under copy0/, copy1/, ... until the zip passes the size. Prints figures; asserts nothing.
// Usage: node tests/bench/tab_large_zip.mjs [--mib N] (100 by default). Run by `make bench`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACR, ROOT, openBrowser, serveDist } from "../e2e/harness.mjs";

const args = process.argv.slice(2);
let mib = 100;
for (let at = args.indexOf("--mib"); at >= 0; at = -1) mib = Number(args.splice(at, 2)[1]);
const corpora = join(ROOT, "target", "bench-corpora");
if (!existsSync(corpora)) {
  console.log("skipped: target/bench-corpora is empty (run python3 tools/bench_acr_index.py first)");
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), "acr-large-zip-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const zip = join(scratch, "large.zip");
const tree = join(scratch, "tree");
// Python writes the zip (copies of every .py file until the size is passed) and unpacks it for the native run.
const copies = execFileSync("python3", ["-c", `
import os, sys, zipfile
corpora, out, tree, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
files = []
for root, dirs, names in os.walk(corpora):
    dirs.sort()
    files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".py")]
copies = 0
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    while os.path.getsize(out) < size:
        for f in files:
            z.write(f, f"large-main/copy{copies}/{os.path.relpath(f, corpora)}")
        copies += 1
        z.fp.flush()
zipfile.ZipFile(out).extractall(tree)
print(copies)
`, corpora, zip, tree, String(mib * 2 ** 20)], { encoding: "utf8" }).trim();

const native = JSON.parse(execFileSync(ACR.replace("debug", "release"), ["index", "--json", join(tree, "large-main")],
  { encoding: "utf8", maxBuffer: 1 << 26 }));

const server = await serveDist();
const { ctx, page, errors } = await openBrowser();
await page.goto(server.url);
await page.waitForSelector("html[data-warm]", { state: "attached", timeout: 60000 });
await page.setInputFiles("#zip-input", zip);
const status = page.locator("#status[data-origin]");
await status.waitFor({ timeout: 900000 });
const ms = Number(await status.getAttribute("data-ms"));
const memory = await page.evaluate(() => window.acrMemoryBytes());
const text = await page.locator("#status").textContent();
await ctx.close();
server.close();

const m = (b) => (b / 2 ** 20).toFixed(0);
console.log(`zip ${m(statSync(zip).size)} MiB (${copies} copies of the bench trees' Python), ${native.files} sources`);
console.log(`tab: drop to ready ${ms.toFixed(0)} ms, page wasm memory ${m(memory)} MiB; ${text.trim().slice(0, 120)}`);
console.log(`native: index ${native.milliseconds.toFixed(0)} ms + read ${native.load_milliseconds.toFixed(0)} ms; `
  + `ratio ${(ms / (native.milliseconds + native.load_milliseconds)).toFixed(2)}x`);
if (errors.length) console.log(`page errors: ${errors.join("; ")}`);
