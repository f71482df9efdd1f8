// acr-wasm's entry point: the wasm-bindgen module (built with `--target web`) plus an `init()` that loads the
// WebAssembly file the right way for each host. In Node it reads the file next to this module from disk (Node's
// `fetch` cannot read `file:` URLs); in browsers and bundlers it fetches it. Bundlers (webpack 5, Vite, esbuild
// with a file loader) see `new URL("./acr_wasm_bg.wasm", import.meta.url)` and ship the file as an asset.
import wasmInit, { initSync as wasmInitSync } from "./acr_wasm.js";

export { Repo, applyEdits, checkSyntax, apis, parseCall } from "./acr_wasm.js";

const wasmUrl = new URL("./acr_wasm_bg.wasm", import.meta.url);

/** Whether this is Node (or a runtime with Node's built-ins) loading the package from disk. */
function fromDisk() {
  return typeof process === "object" && process !== null && typeof process.versions?.node === "string"
    && wasmUrl.protocol === "file:";
}

/**
 * Loads and instantiates the WebAssembly module; call once (later calls return at once) before anything else.
 * `source` is optional: bytes, a `WebAssembly.Module`, a `Response`, or a URL to fetch.
 */
export async function init(source) {
  if (source !== undefined) {
    await wasmInit({ module_or_path: source });
  } else if (fromDisk()) {
    const fsModule = "node:fs/promises"; // kept out of bundlers' sight: browsers never take this branch
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsModule);
    await wasmInit({ module_or_path: await readFile(wasmUrl) });
  } else {
    await wasmInit({ module_or_path: wasmUrl });
  }
}

/** Instantiates the module synchronously from its bytes or a compiled `WebAssembly.Module`. */
export function initSync(source) {
  wasmInitSync({ module: source });
}
