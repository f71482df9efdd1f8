//! The indexing worker's side: the exports `web/js/index-worker.mjs` calls in a Web Worker running this same module.
//!
//! A worker either parses texts the page sends ([`parse_sources`]) or reads its share of a zip archive's sources
//! itself ([`open_archive`], then [`unpack_sources`]), so that the page neither inflates the sources nor copies them
//! into messages: it gets each file's bytes back, with its parse, and enters them in archive order
//! ([`acr_core::repo::ZipUnpacker::admit_source`]).

use std::cell::RefCell;

use acr_core::index::{IndexBuilder, ParsedFile, encode_parsed};
use acr_core::repo::{EntryRead, Limits, ZipUnpacker, file_text, is_source_path};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

thread_local! {
    /// The archive this worker reads sources from ([`open_archive`]).
    static ARCHIVE: RefCell<Option<ZipUnpacker<Vec<u8>>>> = const { RefCell::new(None) };
}

/// Parses Python files (paths and texts in the same order) and returns them in [`encode_parsed`]'s binary form,
/// for the page to enter into its index ([`crate::index_pool`]).
#[wasm_bindgen]
pub fn parse_sources(paths: Vec<String>, texts: Vec<String>) -> Result<Vec<u8>, JsError> {
    if paths.len() != texts.len() {
        return Err(JsError::new("parse_sources needs one text per path"));
    }
    let mut builder = IndexBuilder::new();
    let parsed: Vec<ParsedFile> = paths.iter().zip(&texts).map(|(p, t)| builder.parse(p, t)).collect();
    Ok(encode_parsed(&parsed))
}

/// Opens a copy of the zip archive the page is loading, with the page's limits, for [`unpack_sources`].
#[wasm_bindgen]
pub fn open_archive(bytes: Vec<u8>) -> Result<(), JsError> {
    let unpacker = ZipUnpacker::open(bytes, &Limits::default()).map_err(|e| JsError::new(&e.to_string()))?;
    ARCHIVE.set(Some(unpacker));
    Ok(())
}

/// Reads the archive entries `entries` ([`ZipUnpacker::read_entry`]) and parses each one a repository would keep
/// as a source file. Stops early once the bytes read pass `max_bytes`, so that a batch of entries that misstate
/// their sizes cannot inflate without bound: the page hands the entries left out to a worker again.
#[wasm_bindgen]
pub fn unpack_sources(entries: Vec<u32>, max_bytes: usize) -> Result<JsValue, JsError> {
    let batch = ARCHIVE.with_borrow_mut(|archive| {
        let archive = archive.as_mut().ok_or_else(|| JsError::new("no archive is open in this worker"))?;
        Ok::<_, JsError>(UnpackedBatch::read(archive, &entries, max_bytes))
    })?;
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    batch.serialize(&serializer).map_err(|e| JsError::new(&e.to_string()))
}

/// What a worker read of an archive's source entries ([`unpack_sources`]), for the page.
#[derive(Debug, Serialize, Deserialize)]
pub struct UnpackedBatch {
    /// The entries read, in the order asked; fewer than asked when the byte cap was reached.
    pub reads: Vec<(u32, EntryRead)>,
    /// The entries parsed: those whose bytes a repository keeps as a source file ([`file_text`]).
    pub parsed_entries: Vec<u32>,
    /// Their parsed files, in the same order, in [`encode_parsed`]'s form.
    #[serde(with = "acr_core::byte_buf")]
    pub parsed: Vec<u8>,
}

impl UnpackedBatch {
    /// Reads `entries` of `archive` and parses the sources among them, up to `max_bytes` read.
    pub(crate) fn read<B: AsRef<[u8]>>(
        archive: &mut ZipUnpacker<B>,
        entries: &[u32],
        max_bytes: usize,
    ) -> UnpackedBatch {
        let limits = Limits::default();
        let mut builder = IndexBuilder::new();
        let (mut reads, mut parsed_entries, mut parsed) = (Vec::new(), Vec::new(), Vec::new());
        let mut bytes = 0;
        for &entry in entries {
            if bytes > max_bytes {
                break;
            }
            let read = archive.read_entry(entry as usize);
            if let EntryRead::Data { path, data } = &read {
                bytes += data.len();
                if let Ok((clean, text)) = file_text(path, data, &limits)
                    && is_source_path(&clean)
                {
                    parsed_entries.push(entry);
                    parsed.push(builder.parse(&clean, text));
                }
            }
            reads.push((entry, read));
        }
        UnpackedBatch { reads, parsed_entries, parsed: encode_parsed(&parsed) }
    }
}
