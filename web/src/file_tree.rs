//! The loaded repository as a folder tree. Folders open on demand (large repositories stay fast); a file opens in
//! the explorer's file view.

use std::collections::BTreeMap;

use acr_core::index::Language;
use leptos::prelude::*;

use crate::state::{AppState, ExploreRequest};

/// A folder: sub-folders and files (name, path, size in bytes), sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folder {
    /// Sub-folders by name.
    pub folders: BTreeMap<String, Folder>,
    /// Files: name, full path, size.
    pub files: Vec<(String, String, usize)>,
}

impl Folder {
    /// Builds the tree from `(path, size)` pairs.
    pub fn build<'a>(paths: impl Iterator<Item = (&'a str, usize)>) -> Folder {
        let mut root = Folder::default();
        for (path, size) in paths {
            let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            let Some(name) = parts.pop() else { continue };
            let mut node = &mut root;
            for p in parts {
                node = node.folders.entry(p.to_string()).or_default();
            }
            node.files.push((name.to_string(), path.to_string(), size));
        }
        root.sort();
        root
    }

    fn sort(&mut self) {
        self.files.sort();
        for f in self.folders.values_mut() {
            f.sort();
        }
    }

    /// Files in this folder and below.
    pub fn count(&self) -> usize {
        self.files.len() + self.folders.values().map(Folder::count).sum::<usize>()
    }
}

/// The tree of the loaded repository.
#[component]
pub fn FileTree() -> impl IntoView {
    let app = AppState::get();
    move || {
        app.loaded.with(|l| {
            l.as_ref().map(|l| {
                let tree = Folder::build(l.repo.files().map(|(p, t)| (p, t.len())));
                let count = tree.count();
                view! {
                    <details class="file-tree" id="file-tree">
                        <summary>{format!("Files ({count})")}</summary>
                        <ul role="tree">{folder_items(tree, app)}</ul>
                    </details>
                }
            })
        })
    }
}

fn folder_items(folder: Folder, app: AppState) -> AnyView {
    let folders = folder
        .folders
        .into_iter()
        .map(|(name, sub)| {
            let open = RwSignal::new(false);
            let sub = StoredValue::new(sub);
            view! {
                <li role="treeitem" aria-expanded=move || open.get().to_string()>
                    <button class="tree-folder" on:click=move |_| open.update(|o| *o = !*o)>
                        {move || if open.get() { "▾ " } else { "▸ " }} {name} "/"
                    </button>
                    {move || open.get().then(|| view! { <ul role="group">{folder_items(sub.get_value(), app)}</ul> })}
                </li>
            }
        })
        .collect_view();
    let hidden = folder.files.len().saturating_sub(MAX_SHOWN);
    let files = folder
        .files
        .into_iter()
        .take(MAX_SHOWN)
        .map(|(name, path, size)| {
            let source = Language::of_path(&name).is_some();
            view! {
                <li role="treeitem">
                    <button class="tree-file" class:source=source title=format!("{path} · {size} bytes")
                        on:click=move |_| app.explore(ExploreRequest::File { path: path.clone() })>{name}</button>
                </li>
            }
        })
        .collect_view();
    let more = (hidden > 0).then(|| {
        view! { <li class="muted small">{format!("… and {hidden} more files (search finds them all)")}</li> }
    });
    view! { {folders}{files}{more} }.into_any()
}

/// Files listed per folder: a folder of 100,000 files must not freeze the tab while it renders.
const MAX_SHOWN: usize = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_sorted_folders() {
        let tree = Folder::build([("b/z.py", 1), ("a.py", 2), ("b/c/d.py", 3), ("b/a.py", 4)].into_iter());
        assert_eq!(tree.count(), 4);
        assert_eq!(tree.files, vec![("a.py".to_string(), "a.py".to_string(), 2)]);
        let b = &tree.folders["b"];
        let names: Vec<_> = b.files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["a.py", "z.py"]);
        assert_eq!(b.folders["c"].files[0].1, "b/c/d.py");
    }
}
