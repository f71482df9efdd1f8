// An indexing worker: parses a share of a repository's source files with the playground's own core and sends the
// parsed files back, so that the page's thread stays free while a large repository is indexed.
//
// Messages (serde types in web/src/index_pool.rs):
// - `{kind: "start", id, module}` instantiates the page's already compiled WebAssembly module here (the page
//   compiles it once) and answers `{kind: "ready", id}`;
// - `{kind: "parse", id, paths, texts}` answers `{kind: "parsed", id, bytes}` with the parsed files in the core's
//   binary form (the buffer is transferred, not copied);
// - `{kind: "open", id, archive}` opens a copy of the zip archive being loaded and answers `{kind: "ready", id}`;
// - `{kind: "unpack", id, entries, max_bytes}` reads and parses those source entries of the open archive and answers
//   `{kind: "unpacked", id, batch}` (web/src/index_worker.rs, `UnpackedBatch`).
// Any failure answers `{kind: "failed", id, message}`.
import { createInstance } from "./pkg/acr_web_instances.js";

let core = null;

self.onmessage = ({ data }) => {
  const { id } = data;
  try {
    if (data.kind === "start") {
      core = createInstance();
      core.initSync({ module: data.module });
      self.postMessage({ kind: "ready", id });
      return;
    }
    if (!core) throw new Error(`the worker was asked to ${data.kind} before it started`);
    if (data.kind === "parse") {
      const bytes = core.parse_sources(data.paths, data.texts);
      self.postMessage({ kind: "parsed", id, bytes }, [bytes.buffer]);
    } else if (data.kind === "open") {
      core.open_archive(data.archive);
      self.postMessage({ kind: "ready", id });
    } else if (data.kind === "unpack") {
      const batch = core.unpack_sources(Uint32Array.from(data.entries), data.max_bytes);
      self.postMessage({ kind: "unpacked", id, batch });
    } else {
      throw new Error(`unknown request ${JSON.stringify(data.kind)}`);
    }
  } catch (e) {
    // A trap leaves this instance unusable: the page terminates the worker on a failure.
    self.postMessage({ kind: "failed", id, message: String(e?.message ?? e) });
  }
};
