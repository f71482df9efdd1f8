//! Loading a repository in the tab: read the zip, unpack its sources, index them, then unpack the rest. Large repositories are parsed in a pool of workers
//! ([`crate::index_pool`]); small ones here, file by file, yielding to the browser between slices so the progress
//! bar moves and the page stays responsive.

use acr_core::index::{Index, IndexBuilder};
use acr_core::repo::{Limits, Repo, ZipUnpacker};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use std::rc::Rc;

use crate::browser::{now, yield_now};
use crate::demo::Demo;

/// A repository loaded in the tab, with its index.
#[derive(Clone)]
pub struct Loaded {
    /// The zip's file name, or "demo repository".
    pub name: String,
    /// The files: at first only the sources of a zip, then all of them (see `complete`).
    pub repo: Rc<Repo>,
    /// The index built from them.
    pub index: Rc<Index>,
    /// The bundled demo repository this is, if it is one.
    pub demo: Option<&'static Demo>,
    /// Whether `repo` holds every file: a zip's sources are indexed and searchable before its other files are
    /// unpacked, and a run waits for those (its tests may read them).
    pub complete: bool,
}

/// How long to index before letting the browser paint, in milliseconds.
const SLICE_MS: f64 = 30.0;

/// Reads a browser `File` into bytes.
pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    Ok(read_file_js(file).await?.to_vec())
}

/// Reads a browser `File` into a JavaScript byte array (no copy into the module's memory yet).
pub async fn read_file_js(file: &web_sys::File) -> Result<js_sys::Uint8Array, String> {
    let buffer = JsFuture::from(file.array_buffer()).await.map_err(|e| format!("cannot read the file: {e:?}"))?;
    let buffer: js_sys::ArrayBuffer = buffer.dyn_into().map_err(|_| "the browser returned no bytes".to_string())?;
    Ok(js_sys::Uint8Array::new(&buffer))
}

/// Opens a zip archive for unpacking, sources first ([`ZipUnpacker`]). An archive whose directory says it unpacks
/// to more than the tab can hold ([`Limits::max_total_bytes`]) is refused before anything is unpacked.
pub fn open_zip(bytes: Vec<u8>) -> Result<ZipUnpacker<Vec<u8>>, String> {
    let limits = Limits::default();
    let unpacker = ZipUnpacker::open(bytes, &limits).map_err(|e| e.to_string())?;
    let summary = unpacker.summary();
    if summary.declared_bytes > limits.max_total_bytes as u64 {
        return Err(format!(
            "this archive unpacks to {}, and the tab holds at most {} of files. Leave data, build output and \
             vendored folders out of the zip, or use the acr command line, which has no such limit.",
            mib(summary.declared_bytes),
            mib(limits.max_total_bytes as u64)
        ));
    }
    Ok(unpacker)
}

/// The repository in a sources archive (what [`ZipUnpacker::sources_archive`] wrote, kept by the index cache).
pub fn open_sources_archive(bytes: Vec<u8>) -> Result<Repo, String> {
    let mut unpacker = ZipUnpacker::open_sources_archive(bytes, &Limits::default()).map_err(|e| e.to_string())?;
    Ok(unpacker.sources())
}

/// Unpacks the archive's entries that are not sources into a repository of their own, yielding to the browser
/// between slices; `None` when `cancelled()` turned true.
pub async fn unpack_rest(unpacker: &mut ZipUnpacker<Vec<u8>>, cancelled: &dyn Fn() -> bool) -> Option<Repo> {
    /// Entries unpacked between two looks at the clock.
    const ENTRIES_PER_LOOK: usize = 32;
    let mut rest = Repo::new();
    let mut slice_start = now();
    while unpacker.rest(&mut rest, ENTRIES_PER_LOOK) > 0 {
        if now() - slice_start > SLICE_MS {
            yield_now().await;
            if cancelled() {
                return None;
            }
            slice_start = now();
        }
    }
    Some(rest)
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / f64::from(1 << 20))
}

/// Indexes the repository's sources on the page's thread, calling `progress(done, total)` between slices; `None`
/// when `cancelled()` turned true.
pub async fn index_with_progress(
    repo: &Repo,
    cancelled: &dyn Fn() -> bool,
    mut progress: impl FnMut(usize, usize),
) -> Option<Index> {
    let sources: Vec<_> = repo.source_files().collect();
    let total = sources.len();
    let mut builder = IndexBuilder::new();
    let mut slice_start = now();
    progress(0, total);
    if crate::browser::test_trap_requested("index") {
        crate::browser::trap();
    }
    for (done, (path, text)) in sources.into_iter().enumerate() {
        builder.add_file(path, text);
        if now() - slice_start > SLICE_MS {
            progress(done + 1, total);
            yield_now().await;
            if cancelled() {
                return None;
            }
            slice_start = now();
        }
    }
    progress(total, total);
    Some(builder.finish())
}

/// Bytes of Python source in a repository: what decides between the page's thread and the worker pool.
pub fn source_bytes(repo: &Repo) -> usize {
    repo.source_files().map(|(_, text)| text.len()).sum()
}
