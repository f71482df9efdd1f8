//! The search tree of APR-MCTS: nodes, UCB selection and back-propagation.
//!
//! Defaults follow the published implementation: exploration constant `c = 0.7`; an unvisited child scores `V + 1`;
//! ties are broken at random (a seeded generator, so runs replay); each node is expanded once; after an expansion
//! every expanded ancestor takes `V = 0.8 * (visit-weighted mean of its children's V) + 0.2 * V`.
//!
//! A node that was expanded but produced no child (the model's answers were all unusable) is a dead end: selection
//! never descends into it, and a parent whose children are all dead ends is a dead end too. When the root is a dead
//! end, [`Tree::select`] returns `None` and the search stops.

use serde::Serialize;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

/// Selection and back-propagation parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TreePolicy {
    /// Exploration constant `c` in `V + c * sqrt(2 ln N_parent / n_child)`.
    pub exploration: f64,
    /// Bonus for a child never visited (`V + bonus`).
    pub unvisited_bonus: f64,
    /// Weight of the children's mean in back-propagation (the node's own `V` gets `1 - weight`).
    pub children_weight: f64,
}

impl Default for TreePolicy {
    fn default() -> Self {
        TreePolicy { exploration: 0.7, unvisited_bonus: 1.0, children_weight: 0.8 }
    }
}

/// One node: a candidate state with its statistics.
#[derive(Debug, Clone, Serialize)]
pub struct Node<S> {
    /// The parent, `None` for the root.
    pub parent: Option<NodeId>,
    /// Children in creation order.
    pub children: Vec<NodeId>,
    /// Times this node was on an evaluated path.
    pub visits: u32,
    /// Value estimate `V`: starts at the node's reward and moves with its children's (it guides the search).
    pub value: f64,
    /// The reward the node's own evaluation gave (it never changes; it judges the node's candidate).
    pub reward: f64,
    /// Whether the node has been expanded (it never is twice).
    pub expanded: bool,
    /// The model's reflection that produced this node (text before its first code block).
    pub reflection: String,
    /// The state: for repair, a patch and its validation outcome.
    pub state: S,
}

/// A tree of candidates.
#[derive(Debug, Clone, Serialize)]
pub struct Tree<S> {
    /// All nodes; the root is node 0.
    pub nodes: Vec<Node<S>>,
    /// The policy in force.
    pub policy: TreePolicy,
    #[serde(skip)]
    rng: SplitMix64,
}

impl<S> Tree<S> {
    /// A tree with one root node.
    pub fn new(root: S, policy: TreePolicy, seed: u64) -> Self {
        let root = Node {
            parent: None,
            children: Vec::new(),
            visits: 0,
            value: 0.0,
            reward: 0.0,
            expanded: false,
            reflection: String::new(),
            state: root,
        };
        Tree { nodes: vec![root], policy, rng: SplitMix64(seed) }
    }

    /// The root's id.
    pub const ROOT: NodeId = 0;

    /// Adds an evaluated child: one visit, value `reward`.
    pub fn add_child(&mut self, parent: NodeId, state: S, reflection: String, reward: f64) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(parent),
            children: Vec::new(),
            visits: 1,
            value: reward,
            reward,
            expanded: false,
            reflection,
            state,
        });
        self.nodes[parent].children.push(id);
        id
    }

    /// Marks a node expanded (call once its children, possibly none, are added).
    pub fn mark_expanded(&mut self, id: NodeId) {
        self.nodes[id].expanded = true;
    }

    /// The UCB score of `child` under its parent.
    pub fn ucb(&self, child: NodeId) -> f64 {
        let node = &self.nodes[child];
        if node.visits == 0 {
            return node.value + self.policy.unvisited_bonus;
        }
        let parent_visits = node.parent.map(|p| self.nodes[p].visits).unwrap_or(0).max(1) as f64;
        node.value + self.policy.exploration * (2.0 * parent_visits.ln() / node.visits as f64).sqrt()
    }

    /// Whether selection can still reach an unexpanded node through `id`.
    pub fn is_dead_end(&self, id: NodeId) -> bool {
        let node = &self.nodes[id];
        node.expanded && node.children.iter().all(|&c| self.is_dead_end(c))
    }

    /// Descends from the root while the current node is expanded, taking the child with the best UCB (ties at
    /// random) among those that are not dead ends. Returns the unexpanded node reached, or `None` when the whole
    /// tree is exhausted.
    pub fn select(&mut self) -> Option<NodeId> {
        let mut current = Self::ROOT;
        loop {
            if self.is_dead_end(current) {
                return None;
            }
            if !self.nodes[current].expanded {
                return Some(current);
            }
            let live: Vec<NodeId> =
                self.nodes[current].children.iter().copied().filter(|&c| !self.is_dead_end(c)).collect();
            let best = live.iter().map(|&c| self.ucb(c)).fold(f64::NEG_INFINITY, f64::max);
            let tied: Vec<NodeId> = live.into_iter().filter(|&c| (self.ucb(c) - best).abs() < 1e-12).collect();
            current = tied[self.rng.below(tied.len())];
        }
    }

    /// After `id` was expanded and its children evaluated: adds a visit to `id` and each ancestor, and sets each
    /// expanded one's value to `w * (visit-weighted mean of children's V) + (1 - w) * V`.
    pub fn backpropagate(&mut self, id: NodeId) {
        let w = self.policy.children_weight;
        let mut current = Some(id);
        while let Some(n) = current {
            self.nodes[n].visits += 1;
            if self.nodes[n].expanded {
                let (sum, visits) = self.nodes[n]
                    .children
                    .iter()
                    .map(|&c| &self.nodes[c])
                    .fold((0.0, 0u32), |(s, v), c| (s + c.value * c.visits as f64, v + c.visits));
                if visits > 0 {
                    let mean = sum / visits as f64;
                    self.nodes[n].value = w * mean + (1.0 - w) * self.nodes[n].value;
                }
            }
            current = self.nodes[n].parent;
        }
    }

    /// The best node among those satisfying `keep`: the highest reward of its own, then the highest value, then the
    /// most visits. The value guides the search and falls when a node's refinements fail; that does not make the
    /// node's own candidate worse, so the answer is judged by its reward.
    pub fn best_by(&self, keep: impl Fn(&Node<S>) -> bool) -> Option<NodeId> {
        (0..self.nodes.len()).filter(|&i| keep(&self.nodes[i])).max_by(|&a, &b| {
            let (na, nb) = (&self.nodes[a], &self.nodes[b]);
            na.reward.total_cmp(&nb.reward).then(na.value.total_cmp(&nb.value)).then(na.visits.cmp(&nb.visits))
        })
    }
}

/// A small seeded generator (SplitMix64): tie-breaking needs no OS randomness, and runs replay exactly.
#[derive(Debug, Clone, Default)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Tree<&'static str> {
        Tree::new("root", TreePolicy::default(), 7)
    }

    // Regression: the demo's MCTS run returned a 0.35-rated patch because the 0.85-rated one had three refinements
    // that did not compile, which pulled its value below its siblings'.
    #[test]
    fn the_best_candidate_is_judged_by_its_own_reward_not_its_failed_refinements() {
        let mut t = tree();
        let good = t.add_child(0, "good", String::new(), 0.85);
        let fair = t.add_child(0, "fair", String::new(), 0.35);
        t.mark_expanded(0);
        t.backpropagate(0);
        for _ in 0..3 {
            let broken = t.add_child(good, "broken", String::new(), -1.0);
            t.mark_expanded(broken);
        }
        t.mark_expanded(good);
        t.backpropagate(good);
        assert!(t.nodes[good].value < t.nodes[fair].value, "the search now prefers the other branch");
        assert_eq!(t.best_by(|n| n.state != "root" && n.state != "broken"), Some(good));
    }

    #[test]
    fn ucb_matches_the_formula() {
        let mut t = tree();
        let a = t.add_child(0, "a", String::new(), 0.5);
        t.mark_expanded(0);
        t.nodes[0].visits = 4;
        t.nodes[a].visits = 2;
        let want = 0.5 + 0.7 * (2.0 * 4f64.ln() / 2.0).sqrt();
        assert!((t.ucb(a) - want).abs() < 1e-12);
        t.nodes[a].visits = 0;
        assert!((t.ucb(a) - 1.5).abs() < 1e-12, "unvisited scores V + 1");
    }

    #[test]
    fn selection_descends_through_expanded_nodes_by_ucb() {
        let mut t = tree();
        t.nodes[0].visits = 3;
        let good = t.add_child(0, "good", String::new(), 0.9);
        let bad = t.add_child(0, "bad", String::new(), -1.0);
        t.mark_expanded(0);
        assert_eq!(t.select(), Some(good));
        let leaf = t.add_child(good, "leaf", String::new(), 0.2);
        t.mark_expanded(good);
        t.nodes[good].visits = 2;
        assert_eq!(t.select(), Some(leaf));
        let _ = bad;
    }

    #[test]
    fn ties_are_broken_at_random_but_reproducibly() {
        let picks = |seed| {
            let mut t = Tree::new((), TreePolicy::default(), seed);
            for _ in 0..4 {
                t.add_child(0, (), String::new(), 0.5);
            }
            t.mark_expanded(0);
            t.nodes[0].visits = 4;
            (0..16).map(|_| t.select().unwrap()).collect::<Vec<_>>()
        };
        let a = picks(1);
        assert_eq!(a, picks(1), "same seed, same choices");
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert!(distinct.len() > 1, "ties spread over several children: {a:?}");
    }

    #[test]
    fn backpropagation_mixes_children_and_own_value() {
        let mut t = tree();
        t.nodes[0].value = 0.5;
        let a = t.add_child(0, "a", String::new(), 1.0);
        t.add_child(0, "b", String::new(), 0.0);
        t.mark_expanded(0);
        t.nodes[a].visits = 3; // a weighs three times as much as b
        t.backpropagate(0);
        let mean = (1.0 * 3.0 + 0.0 * 1.0) / 4.0;
        assert!((t.nodes[0].value - (0.8 * mean + 0.2 * 0.5)).abs() < 1e-12);
        assert_eq!(t.nodes[0].visits, 1);

        // Two levels: the grandchild's reward reaches the root through a.
        let g = t.add_child(a, "g", String::new(), -1.0);
        t.mark_expanded(a);
        let (va, vroot) = (t.nodes[a].value, t.nodes[0].value);
        t.backpropagate(a);
        let new_a = -0.8 + 0.2 * va;
        assert!((t.nodes[a].value - new_a).abs() < 1e-12);
        let mean = (new_a * 4.0 + 0.0 * 1.0) / 5.0;
        assert!((t.nodes[0].value - (0.8 * mean + 0.2 * vroot)).abs() < 1e-12);
        assert_eq!((t.nodes[a].visits, t.nodes[g].visits), (4, 1));
    }

    #[test]
    fn an_expansion_without_children_does_not_break_selection() {
        let mut t = tree();
        let a = t.add_child(0, "a", String::new(), 0.9);
        let b = t.add_child(0, "b", String::new(), 0.1);
        t.mark_expanded(0);
        t.nodes[0].visits = 2;
        assert_eq!(t.select(), Some(a));
        t.mark_expanded(a); // the model gave nothing usable
        t.backpropagate(a);
        assert_eq!(t.select(), Some(b), "the dead end is skipped");
        t.mark_expanded(b);
        assert_eq!(t.select(), None, "every path is exhausted");
    }
}
