//! An A2A agent as the assistant (`--assistant a2a:URL`, issue 26): its card, the two wire
//! dialects (1.0 and 0.3) and the client of one episode. A thin client over `reqwest` with our
//! own serde shapes (ARCHITECTURE.md says why), tested against the official Python SDK.

pub mod card;
pub mod client;
pub mod wire;
