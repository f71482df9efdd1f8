//! What the fuzz targets share: splitting one input into several fields, and a small indexed repository to run
//! searches and locations against (the demo repository and the test fixture, read once).
//!
//! Input formats, which `tools/fuzz.py` follows when it builds the seed corpora:
//!
//! | target | input |
//! |---|---|
//! | `zip_loader` | the bytes of a zip archive |
//! | `parse_edits`, `proxy_call`, `proxy_extract`, `syntax_gate` | text |
//! | `apply` | a model answer, NUL, the text of the file it edits |
//! | `search_args` | an API name, a newline, its arguments as JSON |
//! | `locate_request` | the proxy's JSON answer; or file, NUL, class, NUL, method |
//! | `chat_response` | the status code as two bytes (big-endian), then the response body |
//! | `runner_request` | a `POST /run` body (JSON) |

use std::path::Path;
use std::sync::OnceLock;

use acr_core::{Index, Repo};

/// The input as UTF-8 text (lossy: every byte sequence becomes some text, so no input is wasted).
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// The input split at NUL bytes into at most `n` fields (the last one keeps any further NULs).
pub fn fields(data: &[u8], n: usize) -> Vec<String> {
    data.splitn(n, |b| *b == 0).map(text).collect()
}

/// The demo repository and the fixture repository together, with their index.
pub fn sample() -> &'static (Repo, Index) {
    static SAMPLE: OnceLock<(Repo, Index)> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for (base, prefix) in [("web/demo", "demo"), ("tests/fixtures/minirepo", "mini")] {
            collect(&root.join(base), &root.join(base), prefix, &mut files);
        }
        let repo = Repo::from_files(files);
        let index = Index::build(&repo);
        (repo, index)
    })
}

fn collect(root: &Path, dir: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, prefix, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            let relative = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            if let Ok(bytes) = std::fs::read(&path) {
                out.push((format!("{prefix}/{relative}"), bytes));
            }
        }
    }
}
