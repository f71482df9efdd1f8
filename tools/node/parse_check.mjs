// V8's verdict on JavaScript sources, as `node --check` gives it, for many files: reads paths (one per line) on
// stdin and prints `OK<TAB>path` or `ERR<TAB>line<TAB>message<TAB>path` for each. Nothing is run. A file is compiled
// as Node compiles it: an ES module (`.mjs`, a `.js` under a package.json saying `"type": "module"`, or a file that
// only parses as a module, as Node 22 detects them) by `node --input-type=module --check`, one process each; any
// other, in this process, as `--check` compiles CommonJS: the body of the module wrapper function, where a top-level
// `return` is allowed. Used by core/tests/gate_node.rs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';

const moduleFolders = new Map();
/** Whether the nearest package.json above `folder` says its .js files are ES modules. */
function esmFolder(folder) {
  if (!moduleFolders.has(folder)) {
    const manifest = join(folder, 'package.json');
    const parent = dirname(folder);
    let esm = false;
    if (existsSync(manifest)) {
      try {
        esm = JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
      } catch {}
    } else if (parent !== folder) {
      esm = esmFolder(parent);
    }
    moduleFolders.set(folder, esm);
  }
  return moduleFolders.get(folder);
}

/** `null` when the source compiles as CommonJS, else [line, message]. */
function commonJs(source, path) {
  try {
    compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: path });
    return null;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const at = String(error.stack).split('\n')[0].match(/:(\d+)$/);
    return [at ? Number(at[1]) : 0, error.message];
  }
}

/** `null` when the source compiles as an ES module, else [line, message]. */
function esModule(source) {
  const run = spawnSync(process.execPath, ['--input-type=module', '--check'], { input: source, encoding: 'utf8' });
  if (run.status === 0) return null;
  const at = run.stderr.match(/^\[stdin\]:(\d+)/m);
  const message = run.stderr.match(/^SyntaxError: (.*)$/m);
  return [at ? Number(at[1]) : 0, message ? message[1] : run.stderr.trim().split('\n')[0]];
}

const ESM_ONLY = /import statement outside a module|Unexpected token 'export'|'import\.meta' outside a module/;
const out = [];
for (const path of readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  let source = readFileSync(path, 'utf8');
  // The hashbang line, which Node allows at the start of a file, is a comment to the wrapper.
  if (source.startsWith('#!')) source = '//' + source.slice(2);
  const declared = path.endsWith('.mjs') || (path.endsWith('.js') && esmFolder(dirname(path)));
  let verdict = declared ? esModule(source) : commonJs(source, path);
  if (verdict && !declared && !path.endsWith('.cjs') && ESM_ONLY.test(verdict[1])) verdict = esModule(source);
  out.push(verdict ? `ERR\t${verdict[0]}\t${verdict[1].replace(/\s+/g, ' ')}\t${path}` : `OK\t${path}`);
}
process.stdout.write(out.join('\n') + '\n');
