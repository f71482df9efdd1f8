// The playground's index cache, in IndexedDB: parsed files keyed by a SHA-256 of the archive they came from, and
// the last archive loaded, so that dropping the same zip again or reloading the page skips the parse.
//
// Three stores: `indexes` (key: the archive's hash; value: {bytes}, the parsed files in the core's binary form,
// which names its own format version), `meta` (same key; {size, used}, read for eviction without loading the
// indexes) and `last` (key "repository": {name, hash, sources}, the last archive's name, hash and its source files
// as an archive of their own, read first on a reload; key "archive": {bytes}, the whole archive, read after). Entries are evicted oldest-used first beyond
// LIMIT bytes. Everything here fails soft: a browser without IndexedDB or crypto.subtle (a page not served from a
// secure origin) simply has no cache. Nothing read here is trusted by the page (web/src/index_cache.rs checks it).
const DB = "acr-index-cache";
const LIMIT = 256 * 1024 * 1024;

let opening = null;

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function db() {
  opening ??= new Promise((resolve, reject) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => {
      r.result.createObjectStore("indexes");
      r.result.createObjectStore("meta");
      r.result.createObjectStore("last");
    };
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  return opening;
}

async function store(name, mode) {
  return (await db()).transaction(name, mode).objectStore(name);
}

/** The archive's SHA-256 as hex. */
async function hash(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The size an entry takes, whatever shape an earlier version of the page stored it in. */
const sizeOf = (entry) => entry?.bytes?.byteLength ?? (entry?.json?.length ?? 0) * 2;

/** The cached entry for a hash ({bytes}), or undefined; marks it used. */
async function get(key) {
  const entry = await request((await store("indexes", "readonly")).get(key));
  if (entry) {
    await request((await store("meta", "readwrite")).put({ size: sizeOf(entry), used: Date.now() }, key));
  }
  return entry;
}

/** Stores parsed files (a Uint8Array) for a hash, then evicts the oldest-used entries beyond the limit. */
async function put(key, bytes) {
  const size = bytes.byteLength;
  if (size > LIMIT) return;
  await request((await store("indexes", "readwrite")).put({ bytes }, key));
  await request((await store("meta", "readwrite")).put({ size, used: Date.now() }, key));
  const meta = await store("meta", "readonly");
  const [keys, values] = await Promise.all([request(meta.getAllKeys()), request(meta.getAll())]);
  const entries = keys.map((k, i) => ({ k, size: values[i].size, used: values[i].used }));
  entries.sort((a, b) => b.used - a.used);
  let total = 0;
  for (const e of entries.filter((e) => (total += e.size) > LIMIT)) {
    await request((await store("indexes", "readwrite")).delete(e.k));
    await request((await store("meta", "readwrite")).delete(e.k));
  }
}

/** Remembers the archive last loaded (restored after a reload): its name, hash, sources archive and bytes. */
async function remember(name, key, bytes, sources) {
  const last = await store("last", "readwrite");
  await Promise.all([
    request(last.put({ name, hash: key, sources }, "repository")),
    request(last.put({ bytes }, "archive")),
  ]);
}

/** The whole archive last remembered (a Uint8Array), or undefined. */
async function archive() {
  return (await request((await store("last", "readonly")).get("archive")))?.bytes;
}

/** The archive last loaded, or undefined. */
async function last() {
  return request((await store("last", "readonly")).get("repository"));
}

/**
 * What a reload restores: the archive last loaded ({name, hash, sources}) and its cached entry's bytes as `index`
 * (undefined when there is none), or undefined (also for what an older page stored, which had no sources). The
 * whole archive is read later (`archive()`). `web/boot.js` starts this before the module is compiled, so the reads
 * overlap the compile.
 */
async function restore() {
  const last = await request((await store("last", "readonly")).get("repository"));
  if (!last?.sources) return undefined;
  const entry = await request((await store("indexes", "readonly")).get(last.hash)).catch(() => undefined);
  // Marked used without waiting: the reload is what the user waits for.
  if (entry) store("meta", "readwrite").then((m) => m.put({ size: sizeOf(entry), used: Date.now() }, last.hash)).catch(() => {});
  return { ...last, index: entry?.bytes };
}

/** Entries and bytes held. */
async function usage() {
  const values = await request((await store("meta", "readonly")).getAll());
  const [lastRepo, whole] = await Promise.all([last(), archive()]);
  const bytes = values.reduce((n, v) => n + (v.size ?? 0), 0) + (lastRepo?.sources?.byteLength ?? 0)
    + (whole?.byteLength ?? 0);
  return { entries: values.length, bytes };
}

/** Forgets everything. */
async function clear() {
  for (const name of ["indexes", "meta", "last"]) await request((await store(name, "readwrite")).clear());
}

export const indexCache = { hash, get, put, remember, last, archive, restore, usage, clear, limit: LIMIT };
