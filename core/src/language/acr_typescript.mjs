// acr's TypeScript loader for Node (`node --import ./acr_typescript.mjs SCRIPT`), written beside the repository for
// each run. acr has already replaced every TypeScript file of the run with its JavaScript (its types blanked, lines
// and columns kept), so this only tells Node how to find and read those files, as TypeScript's own resolution would:
// a relative `./x.js` that does not exist names `./x.ts` (`.mjs` names `.mts`, `.cjs` names `.cts`), and `./x` with
// no extension names `./x.ts` or `./x/index.ts`; `.ts` and `.mts` files are ES modules and `.cts` files CommonJS.
// The playground's tab follows the same rules (web/src/tab_runner/module_plan.rs).
import { register } from 'node:module';
import { readFile } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';

// Node runs the hooks below in a thread of their own, where this module is loaded again.
if (isMainThread) register(import.meta.url);

const TYPESCRIPT_OF = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts' };

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    if (!relative || !['ERR_MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT'].includes(error.code)) throw error;
    const ext = Object.keys(TYPESCRIPT_OF).find((e) => specifier.endsWith(e));
    const tries = ext
      ? [specifier.slice(0, -ext.length) + TYPESCRIPT_OF[ext]]
      : [`${specifier}.ts`, `${specifier}/index.ts`];
    for (const candidate of tries) {
      try {
        return await nextResolve(candidate, context);
      } catch {
        // the next candidate, or Node's own error below
      }
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  const path = url.split(/[?#]/)[0];
  if (path.endsWith('.ts') || path.endsWith('.mts')) {
    return { format: 'module', source: await readFile(new URL(path), 'utf8'), shortCircuit: true };
  }
  if (path.endsWith('.cts')) {
    return { format: 'commonjs', source: null, shortCircuit: true };
  }
  return nextLoad(url, context);
}
