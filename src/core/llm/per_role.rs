//! One value per model role (attacker, assistant, judge), indexed by [`Role`].

use std::ops::{Index, IndexMut};

use super::endpoint::Role;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerRole<T> {
    pub attacker: T,
    pub assistant: T,
    pub judge: T,
}

impl<T> PerRole<T> {
    pub fn new(attacker: T, assistant: T, judge: T) -> Self {
        PerRole { attacker, assistant, judge }
    }

    /// The same function applied to every role's value.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> PerRole<U> {
        PerRole { attacker: f(self.attacker), assistant: f(self.assistant), judge: f(self.judge) }
    }

    pub fn iter(&self) -> impl Iterator<Item = (Role, &T)> {
        [(Role::Attacker, &self.attacker), (Role::Assistant, &self.assistant), (Role::Judge, &self.judge)]
            .into_iter()
    }
}

impl<T> Index<Role> for PerRole<T> {
    type Output = T;

    fn index(&self, role: Role) -> &T {
        match role {
            Role::Attacker => &self.attacker,
            Role::Assistant => &self.assistant,
            Role::Judge => &self.judge,
        }
    }
}

impl<T> IndexMut<Role> for PerRole<T> {
    fn index_mut(&mut self, role: Role) -> &mut T {
        match role {
            Role::Attacker => &mut self.attacker,
            Role::Assistant => &mut self.assistant,
            Role::Judge => &mut self.judge,
        }
    }
}
