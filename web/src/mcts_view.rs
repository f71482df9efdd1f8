//! The APR-MCTS search tree: every candidate patch with its visits, value, validation verdict, the model's
//! reflection and its diff, as it stood after any iteration of the search.

use acr_core::agent::{Event, TreeNode};
use leptos::prelude::*;

use crate::diff_view::DiffView;
use crate::state::AppState;

/// The tree panel.
#[component]
pub fn TreeView() -> impl IntoView {
    let run = AppState::get().run;
    // Iterations recorded so far: (iteration, tree).
    let snapshots = move || {
        run.events.with(|events| {
            events
                .iter()
                .filter_map(|e| match e {
                    Event::Mcts { iteration, tree, .. } => Some((*iteration, tree.clone())),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
    };
    // `None` follows the latest iteration.
    let picked = RwSignal::new(None::<usize>);
    let chosen_diff = move || run.outcome.with(|o| o.as_ref().map(|o| o.diff.clone()).unwrap_or_default());
    view! {
        <div id="mcts">
            {move || {
                let snaps = snapshots();
                if snaps.is_empty() {
                    return view! {
                        <p class="muted">"The search tree appears here when the agent runs in MCTS mode."</p>
                    }
                    .into_any();
                }
                let last = snaps.len() - 1;
                let index = picked.get().map_or(last, |i| i.min(last));
                let (iteration, tree) = snaps[index].clone();
                let chosen = chosen_diff();
                let options = snaps
                    .iter()
                    .enumerate()
                    .map(|(i, (it, _))| view! { <option value=i.to_string() selected=i == index>{format!("after iteration {it}")}</option> })
                    .collect_view();
                view! {
                    <div class="row">
                        <label for="mcts-iteration">"Tree "</label>
                        <select id="mcts-iteration" on:change=move |ev| {
                            let v = event_target_value(&ev).parse::<usize>().ok();
                            picked.set(if v == Some(last) { None } else { v });
                        }>{options}</select>
                        <span class="muted small">{format!("{} nodes, iteration {iteration}", tree.len())}</span>
                    </div>
                    <ul class="tree" role="tree">{node_view(&tree, 0, &chosen)}</ul>
                }
                .into_any()
            }}
        </div>
    }
}

/// A node and, below it, its children.
fn node_view(tree: &[TreeNode], id: usize, chosen: &str) -> AnyView {
    let Some(node) = tree.iter().find(|n| n.id == id) else { return ().into_any() };
    let children: Vec<AnyView> =
        tree.iter().filter(|n| n.parent == Some(id)).map(|n| node_view(tree, n.id, chosen)).collect();
    let is_chosen = !node.diff.is_empty() && node.diff == chosen;
    let verdict = node.verdict.map_or("root", |v| v.as_str()).to_string();
    let label = if id == 0 { "root (the original program)".to_string() } else { format!("candidate #{id}") };
    let diff = node.diff.clone();
    let reflection = node.reflection.clone();
    view! {
        <li role="treeitem" class="tree-node" class:chosen=is_chosen>
            <div class="node-head">
                <b>{label}</b>
                <span class="pill">{format!("visits {}", node.visits)}</span>
                <span class="pill">{format!("value {:.2}", node.value)}</span>
                <span class=format!("pill verdict-{verdict}")>{verdict.clone()}</span>
                {is_chosen.then(|| view! { <span class="pill chosen-pill">"chosen"</span> })}
            </div>
            {(!reflection.is_empty()).then(|| view! { <p class="reflection">{reflection}</p> })}
            {(!diff.is_empty()).then(|| view! {
                <details class="node-diff">
                    <summary>"patch"</summary>
                    <DiffView diff=diff toolbar=false />
                </details>
            })}
            {(!children.is_empty()).then(|| view! { <ul role="group">{children}</ul> })}
        </li>
    }
    .into_any()
}
