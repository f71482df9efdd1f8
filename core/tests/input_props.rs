//! Untrusted input never panics: archives (random bytes, and real archives with bytes flipped or cut), call strings
//! for the proxy's parser, and arbitrary model answers through the proxy's extractor and validator.

use std::io::Write;

use acr_core::repo::{Limits, Repo};
use proptest::prelude::*;

fn real_zip() -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (path, text) in
        [("r/a.py", "class A:\n    def f(self):\n        return 1\n"), ("r/b/c.py", "def g():\n    pass\n")]
    {
        w.start_file(path, opts).unwrap();
        w.write_all(text.as_bytes()).unwrap();
    }
    w.finish().unwrap();
    out.into_inner()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_are_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = Repo::from_zip(&bytes, &Limits::default());
    }

    #[test]
    fn damaged_archives_are_an_error_or_a_partial_repo(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), cut in any::<prop::sample::Index>()) {
        let mut bytes = real_zip();
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let keep = cut.index(bytes.len() + 1);
        bytes.truncate(keep.max(bytes.len() / 2));
        if let Ok(repo) = Repo::from_zip(&bytes, &Limits::default()) {
            // Whatever was kept is valid text under a safe path.
            for (path, _) in repo.files() {
                prop_assert!(acr_core::repo::normalize_path(path).as_deref() == Some(path));
            }
        }
    }

    #[test]
    fn call_strings_are_never_a_panic(text in "\\PC{0,80}", name in "[a-z_]{1,20}", args in "[\"'a-zA-Z0-9_=, ()\\\\.]{0,40}") {
        let _ = acr_core::call::parse_call(&text);
        let _ = acr_core::call::SearchCall::parse(&format!("{name}({args})"));
    }

    #[test]
    fn answers_are_never_a_panic(answer in "\\PC{0,400}") {
        let extracted = acr_core::answers::search::read(&answer);
        let _ = acr_core::proxy::validate(&extracted.result, None);
        let _ = acr_core::answers::review(&answer);
        let _ = acr_core::prompt::PromptKind::recognise(&[acr_core::llm::Message::user(answer)]);
    }
}
