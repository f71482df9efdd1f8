// A reporter for Node's test runner (`node --test --test-reporter=./acr_test_reporter.mjs FILES`), written into the
// run's folder by acr-wasm's regression check: one line per test that ran, `PASS` or `FAIL`, the test file from the
// repository's root, `::`, and the test's name after the names of the suites around it (`>` between them, spaces
// as underscores, so that the name is one word); a failure adds its message's first line. Skipped and to-do tests,
// and the suites themselves, print nothing. A file that fails before any test runs (a syntax error, a test
// framework Node does not provide) is one failed test named after the file.
import { relative } from "node:path";

export default async function* reporter(source) {
  const open = new Map(); // file → names of the tests started and not yet ended, by nesting
  for await (const { type, data } of source) {
    if (type === "test:start") {
      const names = open.get(data.file) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      open.set(data.file, names);
      continue;
    }
    if ((type !== "test:pass" && type !== "test:fail") || data.details?.type === "suite" || data.skip || data.todo) {
      continue;
    }
    const file = data.file ? relative(process.cwd(), data.file) : "?";
    const path = [...(open.get(data.file) ?? []).slice(0, data.nesting), data.name];
    const name = data.name === data.file ? file : path.map((n) => n.replace(/\s+/g, "_")).join(">");
    if (type === "test:pass") {
      yield `PASS ${file}::${name}\n`;
    } else {
      const error = data.details?.error;
      const message = String(error?.cause?.message ?? error?.message ?? "failed").split("\n")[0];
      yield `FAIL ${file}::${name} ${message}\n`;
    }
  }
}
