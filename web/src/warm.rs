//! Warming the page's code while it waits for a repository.
//!
//! A browser first runs WebAssembly from a quick baseline compilation and replaces the busiest functions with
//! optimised code only after they have run for a while. Without a warm-up, the first few hundred milliseconds of a
//! first load ran at a third of the speed: on Django's sources the indexing workers' first batches took 280-380 ms,
//! the next ones of the same size 95-115 ms, and the zip's sources took 230-270 ms to unpack against 150 ms. So
//! while the page is idle it unpacks and parses a sample of its own (the demo repository, zipped here), in short
//! slices. The indexing workers instantiate the same compiled module, so they start with the optimised code.
//!
//! The indexing workers' spare pool is started after it ([`crate::index_pool::start_spare`]). The warm-up stops as
//! soon as a load starts (it is only a head start), and says when it is done on the `<html>`
//! element (`data-warm`: its milliseconds), which benchmarks wait for.

use std::io::{Cursor, Write};

use acr_core::index::IndexBuilder;
use acr_core::repo::{Limits, ZipUnpacker};

use crate::{browser, demo};

/// Bytes of Python to unzip and parse in all: measured to bring the workers' first batches to the speed of the
/// later ones.
const SAMPLE_BYTES: usize = 256 * 1024;
/// How long the page's thread works before letting the browser paint and handle input, in milliseconds.
const SLICE_MS: f64 = 15.0;

/// Unzips and parses the demo repository over and over, in slices of about [`SLICE_MS`], until [`SAMPLE_BYTES`]
/// were parsed or `stop()` turns true.
pub async fn warm_up(stop: impl Fn() -> bool) {
    let started = browser::now();
    let zip = demo_zip();
    let mut builder = IndexBuilder::new();
    let mut parsed = 0;
    let mut slice_start = f64::NEG_INFINITY;
    while parsed < SAMPLE_BYTES {
        let Ok(mut unpacker) = ZipUnpacker::open(zip.as_slice(), &Limits::default()) else { return };
        for (path, text) in unpacker.sources().source_files() {
            if browser::now() - slice_start > SLICE_MS {
                browser::yield_now().await;
                if stop() {
                    return;
                }
                slice_start = browser::now();
            }
            builder.parse(path, text);
            parsed += text.len();
        }
    }
    // The indexing workers start now too, so that a large repository's parse begins at once.
    crate::index_pool::start_spare();
    browser::set_root_attribute("data-warm", &format!("{:.0}", browser::now() - started));
}

/// The demo repository's Python files as a deflated zip archive.
fn demo_zip() -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (path, text) in demo::PYTHON.files {
        // Writing to memory cannot fail.
        let _ = zip.start_file(*path, options).and_then(|()| Ok(zip.write_all(text.as_bytes())?));
    }
    zip.finish().map(Cursor::into_inner).unwrap_or_default()
}
