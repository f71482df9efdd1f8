//! Small wrappers over the browser APIs the playground uses: the clock, timers, downloads, the clipboard and
//! `localStorage`. Each returns a plain Rust value or a sentence saying what went wrong; none panics.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Milliseconds from the page's time origin.
pub fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

/// Resolves after `ms` milliseconds (on a macrotask, so the browser can render in between).
pub async fn sleep_ms(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let timeout = i32::try_from(ms).unwrap_or(i32::MAX);
            if w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, timeout).is_err() {
                let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            }
        } else {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Lets the browser paint and handle input before carrying on.
pub async fn yield_now() {
    sleep_ms(0).await;
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|_| "the browser could not create the file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "the browser could not create a link to the file".to_string())?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| "the browser could not create a link".to_string())?
        .dyn_into()
        .map_err(|_| "the browser could not create a link".to_string())?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Copies `text` to the clipboard.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let clipboard = web_sys::window().map(|w| w.navigator().clipboard()).ok_or("no clipboard")?;
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|_| "the browser refused access to the clipboard".to_string())
}

/// The page's `localStorage`, when the browser allows it.
fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Reads a saved value.
pub fn load(key: &str) -> Option<String> {
    storage().and_then(|s| s.get_item(key).ok().flatten())
}

/// Saves a value (silently does nothing when storage is unavailable, e.g. in private windows).
pub fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

/// Forgets a saved value.
pub fn forget(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(key);
    }
}

/// Whether the user's system asks for a dark colour scheme.
pub fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Sets an attribute on the `<html>` element (the theme hook for the style sheet).
pub fn set_root_attribute(name: &str, value: &str) {
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute(name, value);
    }
}

/// The page's origin, e.g. `http://127.0.0.1:8080`.
pub fn origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// Leaves a panic's message for the page's bootstrap (`web/boot.js`): a panic ends in a trap, after which the
/// bootstrap restarts the core and shows this message.
pub fn record_panic(message: &str) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &"__acrLastPanic".into(), &message.into());
    }
}

/// The tab's `sessionStorage` (kept across a restart of the core and a reload, not across tabs).
fn session() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.session_storage().ok().flatten())
}

/// Reads a value kept for this tab.
pub fn load_session(key: &str) -> Option<String> {
    session().and_then(|s| s.get_item(key).ok().flatten())
}

/// Keeps a value for this tab (silently does nothing when storage is unavailable).
pub fn save_session(key: &str, value: &str) {
    if let Some(s) = session() {
        let _ = s.set_item(key, value);
    }
}

/// Whether the page's address asks for a test fault at `stage` (`#acr-test-trap=index`). The browser tests use it
/// to check that a trap in the core leaves the page usable; the fault fires once (the fragment is removed).
pub fn test_trap_requested(stage: &str) -> bool {
    let Some(location) = web_sys::window().map(|w| w.location()) else { return false };
    let wanted = location.hash().ok().is_some_and(|h| h == format!("#acr-test-trap={stage}"));
    if wanted {
        let _ = location.set_hash("");
    }
    wanted
}

/// Stops the WebAssembly instance with a trap, as running out of memory does (for [`test_trap_requested`]).
pub fn trap() -> ! {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
    #[cfg(not(target_arch = "wasm32"))]
    std::process::abort();
}
