//! Which exported episodes fork which: a fork of an exported episode is a branch of its parent's
//! sample, not a sample of its own. Worked out once for the whole export (a chain of 600 forks
//! looked its parents up again for every episode).

use std::collections::HashMap;

use crate::core::episode::Episode;

pub struct Family {
    /// The exported episode each one forks from, when it is a branch.
    parent: Vec<Option<usize>>,
    /// The branches of each one, in export order.
    forks: Vec<Vec<usize>>,
    /// Branches left out: written in their parent's sample already.
    dropped: Vec<bool>,
}

impl Family {
    pub fn of(episodes: &[&Episode]) -> Self {
        let by_id: HashMap<&str, usize> = episodes.iter().enumerate().map(|(i, e)| (e.id(), i)).collect();
        let direct: Vec<Option<usize>> = episodes
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let parent = e.header().parent.as_ref()?;
                by_id.get(parent.episode.as_str()).copied().filter(|&p| p != i)
            })
            .collect();
        // Only a chain of parents that ends in a sample: a cycle (no real fork makes one) leaves
        // every episode of it a sample of its own, never an episode dropped.
        let parent: Vec<Option<usize>> = (0..episodes.len())
            .map(|i| {
                let mut at = direct[i]?;
                for _ in 0..episodes.len() {
                    match direct[at] {
                        None => return direct[i],
                        Some(up) if up == i => return None,
                        Some(up) => at = up,
                    }
                }
                None
            })
            .collect();
        let mut forks = vec![Vec::new(); episodes.len()];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = p {
                forks[*p].push(i);
            }
        }
        let dropped = vec![false; episodes.len()];
        Family { parent, forks, dropped }
    }

    /// The family without the branches `written_in(fork, parent)` says their parent's sample
    /// holds already (and that have no branch of their own to write).
    pub fn without(mut self, written_in: impl Fn(usize, usize) -> bool) -> Self {
        for fork in 0..self.parent.len() {
            if let Some(parent) = self.parent[fork]
                && self.forks[fork].is_empty()
                && written_in(fork, parent)
            {
                self.dropped[fork] = true;
                self.forks[parent].retain(|&f| f != fork);
            }
        }
        self
    }

    pub fn is_dropped(&self, index: usize) -> bool {
        self.dropped[index]
    }

    pub fn is_branch(&self, index: usize) -> bool {
        self.parent[index].is_some()
    }

    pub fn forks_of(&self, index: usize) -> &[usize] {
        &self.forks[index]
    }
}
