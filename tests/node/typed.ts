// Type-checked (not run) by pkg.test.mjs with `tsc --strict`: every result field used with its declared type, so a
// declaration that drifts from the API fails the test.
import {
  init, initSync, Repo, applyEdits, checkSyntax, apis, parseCall,
  type IndexStats, type SearchOutput, type Resolution, type ApplyResult, type SyntaxCheck, type SkippedFile,
  type ApiInfo, type AcrError, type EditResult, type BugLocation, type SearchCallInfo,
} from "acr-wasm";

export async function typed(zip: Uint8Array, wasm: ArrayBuffer): Promise<string[]> {
  await init();
  await init(new URL("https://example.invalid/acr_wasm_bg.wasm"));
  initSync(wasm);
  const repo: Repo = Repo.fromZip(zip, { maxFileBytes: 1 << 20, maxEntries: 10, maxTotalBytes: 1 << 24 });
  const other: Repo = Repo.fromFiles({ "a.py": "x = 1\n", "b.py": new Uint8Array([120]) });
  const path: string = other.addFile("c.py", "y = 2\n");
  const stats: IndexStats = repo.index();
  const counts: number[] = [stats.files, stats.parsed, stats.withErrors, stats.classes, stats.methods, stats.functions,
    stats.bytes, stats.skipped, ...Object.values(stats.languages)];
  const skipped: SkippedFile[] = repo.skipped();
  const reasons: string[] = skipped.map((s) => `${s.path}: ${s.reason} (${s.message})`);
  const file: string | undefined = repo.file("a.py");
  const outputs: SearchOutput[] = [
    repo.search("search_class", { class_name: "A" }), repo.search("searchMethod", ["f"]), repo.search("search_code", "x"),
    repo.searchClass("A"), repo.searchClassInFile("A", "a.py"), repo.searchMethod("f"),
    repo.searchMethodInFile("f", "a.py"), repo.searchMethodInClass("f", "A"), repo.searchCode("x"),
    repo.searchCodeInFile("x", "a.py"), repo.getCodeAroundLine("a.py", 1), repo.getCodeAroundLine("a.py", 1, 3),
    repo.getClassFullSnippet("A"),
  ];
  const hits: string[] = outputs.flatMap((o) => o.ok ? o.results.map((h) => `${h.file}:${h.start}-${h.end} ${h.class ?? ""}.${h.func ?? ""}`) : [o.text]);
  const where: Resolution = repo.locate({ file: "a.py", class: null, method: "f" }, "should return 2");
  const locs: BugLocation[] = [...where.locations, ...where.context.map((c) => c.location)];
  const tiers: string[] = where.attempts.map((a) => `${a.tier} ${a.status} ${a.reason ?? a.count ?? ""} ${a.detail ?? ""}`);
  const query: (string | null)[] = [where.query.file, where.query.class, where.query.method, where.found ? where.tier : where.message];
  const patch: ApplyResult = applyEdits(repo, "<file>a.py</file><original>x = 1</original><patched>x = 2</patched>",
    { bugLines: [{ file: "a.py", line: 1 }], refuseAmbiguous: true });
  const edits: EditResult[] = patch.edits;
  const fates: string[] = edits.map((e) => `${e.index} ${e.file} ${e.path} ${e.outcome} ${e.start}-${e.end} ${e.changed} ${e.indent} ${e.failure} ${e.message}`);
  const status: "APPLICABLE_PATCH" | string = patch.status;
  const texts: string[] = Object.values(patch.files);
  const check: SyntaxCheck = checkSyntax("def f(:\n");
  const position: string = check.ok ? "fine" : `${check.line}:${check.column} ${check.kind} ${check.message}`;
  const list: ApiInfo[] = apis();
  const parsed: SearchCallInfo = parseCall("search_class('A')");
  const rerun: SearchOutput = repo.search(parsed.api, parsed.args);
  let error = "";
  try {
    Repo.fromZip(new ArrayBuffer(4));
  } catch (e) {
    const err = e as AcrError;
    error = `${err.name} ${err.code} ${err.message}`;
  }
  repo.free();
  return [path, ...counts.map(String), ...reasons, file ?? "", ...hits, ...locs.map((l) => l.intendedBehavior),
    ...tiers, ...query.map(String), ...fates, status, String(patch.applicable), patch.reason, patch.diff, ...texts,
    position, ...list.map((a) => `${a.name} ${a.method} ${a.params.join()} ${a.summary}`), error,
    `${parsed.api} ${parsed.call} ${Object.keys(parsed.args).join()} ${rerun.ok}`];
}
