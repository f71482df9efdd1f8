// Judges acr's type stripping against V8 and the TypeScript compiler, for many files in one process. Reads lines
// `TS_PATH<TAB>JS_PATH` on stdin (a TypeScript source and what acr stripped it to) and prints, for each,
// `OK<TAB>TS_PATH`, or `PARSE<TAB>line<TAB>message<TAB>TS_PATH` when V8 cannot parse the stripped file as a module, or
// `PARENS<TAB>TS_PATH` when its tokens are those of the TypeScript compiler's own output (`transpileModule`, ES
// modules and ESNext, isolated modules) but for parentheses (the compiler drops those that only held an `as`), or
// `TOKENS<TAB>index<TAB>ours | theirs<TAB>TS_PATH` when they differ otherwise. Tokens are read by TypeScript's
// scanner with comments, semicolons and a closing `export {}` left out. The compiler package is the first argument (the
// tests' `tests/node_modules/typescript-compiler-api`). Run with `--experimental-vm-modules` (V8 parses each file as
// a module through `vm.SourceTextModule`). Used by core/tests/strip_types.rs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';

const ts = createRequire(import.meta.url)(process.argv[2]);
const options = {
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  isolatedModules: true,
  removeComments: true,
};

// The tokens of a JavaScript text, read as the parser would read them: a `/` where an operand starts is a regular
// expression, and a `}` that closes a template's `${` continues the template. String literals are compared by their
// value (the compiler prints its own quotes), and a comma before a closing bracket is left out.
const SyntaxKind = ts.SyntaxKind;
const ENDS_OPERAND = new Set([
  SyntaxKind.Identifier, SyntaxKind.PrivateIdentifier, SyntaxKind.NumericLiteral, SyntaxKind.BigIntLiteral,
  SyntaxKind.StringLiteral, SyntaxKind.RegularExpressionLiteral, SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail, SyntaxKind.CloseParenToken, SyntaxKind.CloseBracketToken, SyntaxKind.CloseBraceToken,
  SyntaxKind.ThisKeyword, SyntaxKind.SuperKeyword, SyntaxKind.TrueKeyword, SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword, SyntaxKind.PlusPlusToken, SyntaxKind.MinusMinusToken,
]);
function tokens(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.ESNext, true, ts.LanguageVariant.Standard, text);
  const out = [];
  const braces = [];
  let previous = SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if ((kind === SyntaxKind.SlashToken || kind === SyntaxKind.SlashEqualsToken) && !ENDS_OPERAND.has(previous)) {
      kind = scanner.reScanSlashToken();
    } else if (kind === SyntaxKind.OpenBraceToken) {
      braces.push('{');
    } else if (kind === SyntaxKind.TemplateHead) {
      braces.push('${');
    } else if (kind === SyntaxKind.CloseBraceToken && braces.pop() === '${') {
      kind = scanner.reScanTemplateToken(false);
      if (kind === SyntaxKind.TemplateMiddle) braces.push('${');
    }
    previous = kind;
    if (kind === SyntaxKind.SemicolonToken) continue;
    const word = kind === SyntaxKind.StringLiteral ? JSON.stringify(scanner.getTokenValue()) : scanner.getTokenText();
    if ([')', ']', '}'].includes(word) && out.at(-1) === ',') out.pop();
    out.push(word);
  }
  const tail = out.slice(-3).join(' ');
  return tail === 'export { }' ? out.slice(0, -3) : out;
}

/** Where two token lists first differ, or -1 when they are the same. */
function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i === a.length && i === b.length ? -1 : i;
}

const out = [];
for (const line of readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  const [tsPath, jsPath] = line.split('\t');
  const ours = readFileSync(jsPath, 'utf8');
  try {
    new vm.SourceTextModule(ours, { identifier: jsPath });
  } catch (e) {
    const at = /:(\d+)$/.exec(String(e.stack).split('\n')[0]);
    out.push(`PARSE\t${at ? at[1] : 0}\t${String(e.message).replace(/\s+/g, ' ')}\t${tsPath}`);
    continue;
  }
  const theirs = ts.transpileModule(readFileSync(tsPath, 'utf8'), { compilerOptions: options }).outputText;
  const [a, b] = [tokens(ours), tokens(theirs)];
  const i = firstDifference(a, b);
  const bare = (t) => t.filter((w) => w !== '(' && w !== ')');
  if (i < 0) {
    out.push(`OK\t${tsPath}`);
  } else if (firstDifference(bare(a), bare(b)) < 0) {
    out.push(`PARENS\t${tsPath}`);
  } else {
    const show = (t) => t.slice(Math.max(0, i - 4), i + 4).join(' ').replace(/[\t\n]/g, ' ');
    out.push(`TOKENS\t${i}\t${show(a)} | ${show(b)}\t${tsPath}`);
  }
}
process.stdout.write(out.join('\n') + '\n');
