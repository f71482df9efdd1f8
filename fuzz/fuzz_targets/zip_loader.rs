//! `Repo::from_zip` on arbitrary bytes: an error or a repository of safe paths, never a panic; then the index. The
//! sources unpacked a few entries at a time (`ZipUnpacker::sources_step`, as the playground hands them to its
//! workers) are the same files, each handed on once; the archive of its sources (`ZipUnpacker::sources_archive`, what
//! the playground keeps for a reload) unpacks to the same source files. Sources read on another unpacker in reverse
//! order (`ZipUnpacker::read_entry`, as the playground's workers read their share) and entered in archive order
//! (`ZipUnpacker::admit_source`), some left for the unpacker to read itself, are the same files and skipped entries.
#![no_main]

use acr_core::repo::{Limits, Repo, ZipUnpacker, normalize_path};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    if let Ok(repo) = Repo::from_zip(data, &limits) {
        for (path, _) in repo.files() {
            assert_eq!(normalize_path(path).as_deref(), Some(path), "an unsafe path was kept");
        }
        let _ = acr_core::Index::build(&repo);
        let mut unpacker = ZipUnpacker::open(data, &limits).expect("the archive opened once already");
        let sources = unpacker.sources();
        assert!(sources.source_files().eq(repo.source_files()), "the sources step gave other sources");
        let mut stepped = ZipUnpacker::open(data, &limits).expect("the archive opened once already");
        let (mut by_steps, mut handed) = (Repo::new(), Vec::new());
        let step = 1 + data.len() % 3;
        while stepped.sources_step(&mut by_steps, step, |path, text| handed.push((path.to_string(), text.len()))) > 0 {}
        assert!(by_steps.files().eq(sources.files()), "the sources unpacked in steps differ");
        assert_eq!(by_steps.skipped(), sources.skipped(), "the sources unpacked in steps skipped other entries");
        handed.sort();
        let kept: Vec<(String, usize)> = sources.files().map(|(p, t)| (p.to_string(), t.len())).collect();
        assert_eq!(handed, kept, "each kept source is handed on once");
        let mut reader = ZipUnpacker::open(data, &limits).expect("the archive opened once already");
        let mut admitting = ZipUnpacker::open(data, &limits).expect("the archive opened once already");
        let mut reads: std::collections::HashMap<usize, _> = admitting
            .pending_sources()
            .iter()
            .rev()
            .filter(|(i, _)| i % 3 != data.len() % 3)
            .map(|&(i, _)| (i, reader.read_entry(i)))
            .collect();
        let mut admitted = Repo::new();
        while let Some(i) = admitting.next_source() {
            admitting.admit_source(&mut admitted, reads.remove(&i));
        }
        assert!(admitted.files().eq(sources.files()), "the sources read elsewhere differ");
        assert_eq!(admitted.skipped(), sources.skipped(), "the sources read elsewhere skipped other entries");
        if let Ok(archive) = unpacker.sources_archive() {
            let reread = ZipUnpacker::open_sources_archive(archive.as_slice(), &limits)
                .expect("a sources archive written here opens")
                .sources();
            assert!(reread.files().eq(sources.files()), "the sources archive gave other files");
        }
    }
});
