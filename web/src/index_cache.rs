//! The index kept across reloads: parsed files stored in IndexedDB under a hash of the archive they came from, and
//! the last archive loaded (`web/js/index-cache.mjs`, exposed by `web/boot.js` as `window.__acrIndexCache`).
//!
//! Entries hold [`acr_core::index::encode_parsed`]'s binary form. Nothing read back is trusted: an entry of another format version,
//! one that does not decode, or one whose files are not exactly the repository's sources (paths and sizes, in
//! order) is ignored and rebuilt. Every call fails soft: without IndexedDB or `crypto.subtle` there is simply no
//! cache.

use acr_core::index::{Index, ParsedFile, decode_parsed};
use acr_core::repo::Repo;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The largest archive remembered for a reload.
const MAX_REMEMBERED_BYTES: usize = 256 << 20;

/// The cache object `web/boot.js` put on the page, if any.
fn cache() -> Option<JsValue> {
    let window: JsValue = web_sys::window()?.into();
    let cache = js_sys::Reflect::get(&window, &"__acrIndexCache".into()).ok()?;
    (!cache.is_undefined()).then_some(cache)
}

/// Calls an async method of the cache now; the returned future awaits its result (`None` on any failure).
fn start(method: &str, args: &[JsValue]) -> impl Future<Output = Option<JsValue>> + use<> {
    let promise = (|| {
        let cache = cache()?;
        let f: js_sys::Function = js_sys::Reflect::get(&cache, &method.into()).ok()?.dyn_into().ok()?;
        f.apply(&cache, &args.iter().collect::<js_sys::Array>()).ok()
    })();
    async move { JsFuture::from(js_sys::Promise::resolve(&promise?)).await.ok() }
}

/// Calls an async method of the cache and awaits it; `None` on any failure.
async fn call(method: &str, args: &[JsValue]) -> Option<JsValue> {
    start(method, args).await
}

/// Starts hashing an archive (hex SHA-256, the key of its cached index); the returned future gives the hash. Chromium
/// computes the digest during this call, on the page's thread (about 30 ms for a 14 MiB zip; a worker started to do
/// it took longer than that to start), so only the await comes later.
pub fn hash(archive: js_sys::Uint8Array) -> impl Future<Output = Option<String>> + use<> {
    let hashing = start("hash", &[archive.into()]);
    async move { hashing.await?.as_string() }
}

/// The cached index of an archive, if there is one and it matches `repo` exactly.
pub async fn lookup(key: &str, repo: &Repo) -> Option<Index> {
    index_from(&entry(key).await?, repo)
}

/// The bytes cached under an archive's hash, if any, not checked yet: [`index_from`] reads them against the
/// repository.
pub async fn entry(key: &str) -> Option<JsValue> {
    let entry = call("get", &[key.into()]).await?;
    js_sys::Reflect::get(&entry, &"bytes".into()).ok().filter(|bytes| !bytes.is_undefined())
}

/// The index in a cached entry's bytes, if they decode and match `repo` exactly.
pub fn index_from(bytes: &JsValue, repo: &Repo) -> Option<Index> {
    let bytes = bytes.dyn_ref::<js_sys::Uint8Array>()?.to_vec();
    let parsed = decode_parsed(&bytes).ok()?;
    matches_sources(&parsed, repo).then(|| Index::from_parsed(parsed))
}

/// Whether parsed files are exactly the repository's sources, in order.
pub fn matches_sources(parsed: &[ParsedFile], repo: &Repo) -> bool {
    let mut sources = repo.source_files();
    parsed
        .iter()
        .all(|p| sources.next().is_some_and(|(path, text)| p.entry.path == path && p.entry.bytes == text.len()))
        && sources.next().is_none()
}

/// Stores an archive's parsed files, in [`acr_core::index::encode_parsed`]'s form (files in path order).
pub async fn store(key: &str, bytes: &[u8]) {
    call("put", &[key.into(), js_sys::Uint8Array::from(bytes).into()]).await;
}

/// Remembers the archive last loaded, with its sources as an archive of their own
/// ([`acr_core::repo::ZipUnpacker::sources_archive`]), to load it again after a reload (archives up to 256 MiB).
pub async fn remember(name: &str, key: &str, bytes: &[u8], sources: &[u8]) {
    if bytes.len() <= MAX_REMEMBERED_BYTES {
        let [bytes, sources] = [bytes, sources].map(|b| js_sys::Uint8Array::from(b).into());
        call("remember", &[name.into(), key.into(), bytes, sources]).await;
    }
}

/// The whole archive [`remember`] kept, read back after its sources were.
pub async fn archive() -> Option<Vec<u8>> {
    Some(call("archive", &[]).await?.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec())
}

/// An archive remembered by [`remember`], to load again after a reload.
pub struct Remembered {
    /// Its file name.
    pub name: String,
    /// Its sources as an archive of their own (the whole archive is read later, with [`archive`]).
    pub sources: Vec<u8>,
    /// Its hash, as remembered (the key of its cached index).
    pub key: String,
    /// Its cached entry's bytes, read ahead with it (checked like any entry before use).
    pub index: JsValue,
}

/// The archive last loaded, if one was remembered, with its cached index read ahead: taken from the reads
/// `web/boot.js` started while the module compiled, or read now if it did not.
pub async fn restore() -> Option<Remembered> {
    let window: JsValue = web_sys::window()?.into();
    let started = js_sys::Reflect::get(&window, &"__acrRestore".into()).ok().filter(|p| !p.is_undefined());
    let restored = match started {
        Some(promise) => {
            // Taken once: a restored page that loads another archive must not find this one again.
            js_sys::Reflect::set(&window, &"__acrRestore".into(), &JsValue::UNDEFINED).ok()?;
            JsFuture::from(js_sys::Promise::resolve(&promise)).await.ok()?
        }
        None => call("restore", &[]).await?,
    };
    let get = |k: &str| js_sys::Reflect::get(&restored, &k.into()).ok();
    let sources = get("sources")?.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec();
    Some(Remembered { name: get("name")?.as_string()?, sources, key: get("hash")?.as_string()?, index: get("index")? })
}

/// Entries and bytes the cache holds, and its limit in bytes.
pub async fn usage() -> Option<(u32, f64, f64)> {
    let usage = call("usage", &[]).await?;
    let get = |k: &str| js_sys::Reflect::get(&usage, &k.into()).ok().and_then(|v| v.as_f64());
    let limit = js_sys::Reflect::get(&cache()?, &"limit".into()).ok()?.as_f64()?;
    Some((get("entries")? as u32, get("bytes")?, limit))
}

/// Forgets every cached index and the remembered archive.
pub async fn clear() {
    call("clear", &[]).await;
}
