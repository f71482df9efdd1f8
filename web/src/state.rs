//! The page's shared state: the loaded repository, the settings, the current run, which tab is open and what the
//! explorer was asked to show. It is a bundle of signal handles (cheap to copy), provided as a Leptos context.

use leptos::prelude::*;

use crate::load::Loaded;
use crate::run::RunState;
use crate::settings::Settings;

/// The result tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The live transcript.
    Transcript,
    /// The final diff.
    Result,
    /// The MCTS tree.
    Tree,
    /// The search explorer.
    Explorer,
}

impl Tab {
    /// Every tab, in order.
    pub const ALL: [Tab; 4] = [Tab::Transcript, Tab::Result, Tab::Tree, Tab::Explorer];

    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Transcript => "Transcript",
            Tab::Result => "Diff",
            Tab::Tree => "Search tree",
            Tab::Explorer => "Explorer",
        }
    }

    /// The tab's id suffix (`tab-…`, `panel-…`).
    pub fn id(self) -> &'static str {
        match self {
            Tab::Transcript => "transcript",
            Tab::Result => "result",
            Tab::Tree => "tree",
            Tab::Explorer => "explorer",
        }
    }
}

/// Something the explorer should show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExploreRequest {
    /// Run a search call.
    Call(acr_core::call::SearchCall),
    /// Show a file.
    File {
        /// Its path.
        path: String,
    },
}

/// Everything the page's components share.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The loaded repository, if any.
    pub loaded: RwSignal<Option<Loaded>, LocalStorage>,
    /// Model and runner settings.
    pub settings: Settings,
    /// The current (or last) run.
    pub run: RunState,
    /// The open tab.
    pub tab: RwSignal<Tab>,
    /// The explorer's latest request (a transcript link, a file in the tree).
    pub explore: RwSignal<Option<ExploreRequest>>,
    /// The issue text.
    pub issue: RwSignal<String>,
}

impl AppState {
    /// The state from the page's context.
    pub fn get() -> AppState {
        expect_context::<AppState>()
    }

    /// Opens the explorer on a request.
    pub fn explore(&self, request: ExploreRequest) {
        self.explore.set(Some(request));
        self.tab.set(Tab::Explorer);
    }
}
