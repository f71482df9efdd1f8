// The `typescript` package's verdict on TypeScript sources, as its parser gives it (`parseDiagnostics`: the syntax
// errors `tsc` reports before any type is checked), for many files in one process: reads paths (one per line) on
// stdin and prints `OK<TAB>path` or `ERR<TAB>line<TAB>message<TAB>path` for each. `.tsx` files are read as TSX, every
// other one as TypeScript. The package is the first argument: the folder of its compiler API (the tests' own,
// `tests/node_modules/typescript-compiler-api`, from tools/setup.sh). Used by core/tests/gate_typescript.rs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)(process.argv[2]);
const out = [];
for (const path of readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  const source = readFileSync(path, 'utf8');
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, false, kind);
  const first = file.parseDiagnostics[0];
  if (!first) {
    out.push(`OK\t${path}`);
    continue;
  }
  const { line } = file.getLineAndCharacterOfPosition(first.start ?? 0);
  const message = ts.flattenDiagnosticMessageText(first.messageText, ' ').replace(/\s+/g, ' ');
  out.push(`ERR\t${line + 1}\t${message}\t${path}`);
}
process.stdout.write(out.join('\n') + '\n');
