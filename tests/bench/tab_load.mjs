// Benchmark (not a test): the largest archive the playground accepts, loaded in headless Chromium, and the hostile
// long-class-name zip. Prints drop-to-ready time and the WebAssembly memory the tab's instance holds afterwards.
//   node tests/bench/tab_load.mjs [files=255]   (files of 4 MiB of real Python; 255 is just under the 1 GiB budget)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBrowser, serveDist } from "../e2e/harness.mjs";
import { longClassNameZip } from "../hostile/inputs.mjs";
import { writeFileSync } from "node:fs";

const files = Number(process.argv[2] ?? 255);
const dir = mkdtempSync(join(tmpdir(), "acr-tab-load-"));
const big = join(dir, "largest.zip");
// 4 MiB of the standard library's own Python, repeated under different names.
execFileSync("python3", ["-c", `
import glob, os, sys, sysconfig, zipfile
src = ""
for f in sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py"))):
    src += open(f, encoding="utf-8", errors="replace").read() + "\\n"
    if len(src.encode()) > (4 << 20):
        break
src = src.encode()[: (4 << 20) - 4096]
src = src[: src.rfind(b"\\n") + 1]
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    for i in range(int(sys.argv[2])):
        z.writestr(f"r/pkg/m{i:03}.py", src)
`, big, String(files)]);
const hostile = join(dir, "long-class-name.zip");
writeFileSync(hostile, longClassNameZip());

const server = await serveDist();
const browser = await openBrowser();
for (const [name, path] of [["hostile long class name", hostile], [`largest accepted (${files} x 4 MiB)`, big]]) {
  const { page } = browser;
  await page.goto(server.url);
  await page.waitForSelector("#zip-input", { state: "attached" });
  const before = await page.evaluate(() => window.acrMemoryBytes());
  const started = Date.now();
  await page.setInputFiles("#zip-input", path);
  await page.waitForSelector("#stats, #error", { timeout: 30 * 60 * 1000 });
  const ms = Date.now() - started;
  const after = await page.evaluate(() => window.acrMemoryBytes());
  const error = await page.$("#error");
  const mb = (n) => (n / 2 ** 20).toFixed(0);
  console.log(`${name}: zip ${mb(statSync(path).size)} MiB, ${error ? `refused: ${await error.textContent()}` : "ready"}`
    + ` in ${(ms / 1000).toFixed(1)} s; wasm memory ${mb(before)} -> ${mb(after)} MiB`);
}
await browser.ctx.close();
server.close();
rmSync(dir, { recursive: true, force: true });
