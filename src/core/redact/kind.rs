//! What a private value is, and the mask that replaces it.

/// What a private value is; decides its mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrivateKind {
    Name,
    Email,
    Phone,
    Address,
    Id,
    Medical,
    Banking,
    Private,
}

impl PrivateKind {
    pub fn mask(self) -> &'static str {
        match self {
            PrivateKind::Name => "[name]",
            PrivateKind::Email => "[email]",
            PrivateKind::Phone => "[phone]",
            PrivateKind::Address => "[address]",
            PrivateKind::Id => "[id]",
            PrivateKind::Medical => "[medical]",
            PrivateKind::Banking => "[banking]",
            PrivateKind::Private => "[private]",
        }
    }
}
