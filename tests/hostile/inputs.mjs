// Hostile inputs shared by the Node (package) and browser (playground) suites. Each builder makes what an attacker
// could publish; the tests check the faces survive it.
import { execFileSync } from "node:child_process";
import { zipEntries } from "../e2e/harness.mjs";

/**
 * A 3 MB Python file whose class name is 100,000 characters long, holding 30,000 one-line methods: before names
 * were stored once, indexing it took 3 GB natively and trapped the wasm. Zipped it is a few kilobytes.
 */
export function longClassNameSource(nameLength = 100_000, methods = 30_000) {
  const name = "C".repeat(nameLength);
  return `class ${name}:\n${"    def m(self): pass\n".repeat(methods)}`;
}

/** The zip of {@link longClassNameSource} under `big/`. */
export function longClassNameZip() {
  return zipEntries({ "big/pkg/big.py": longClassNameSource(), "big/pkg/ok.py": "def ok():\n    return 1\n" });
}

/** A path whose name carries a forged diff header: applying a diff that printed it raw would patch setup.py. */
export const FORGED_PATH = "x\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@\n-x = 1\n+import os\n.py";

/** A zip with the forged path, a backslash name and a normal file. */
export function forgedPathZip() {
  return zipEntries({
    "r/setup.py": "x = 1\n",
    [`r/${FORGED_PATH}`]: "y = 2\n",
    "r/sub\\evil.py": "z = 3\n",
  });
}

/**
 * A zip whose directory declares more unpacked bytes than the tab holds (300 files of 4 MiB, 1.2 GiB), a megabyte
 * or so on disk: it must be refused before anything is unpacked.
 */
export function oversizedZip(files = 300) {
  return execFileSync("python3", ["-c", `
import io, sys, zipfile
buf = io.BytesIO()
text = b"a" * (4 << 20)
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    for i in range(${files}):
        z.writestr(f"big/data{i}.py", text)
sys.stdout.buffer.write(buf.getvalue())
`], { maxBuffer: 64 << 20 });
}
