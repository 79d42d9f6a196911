//! Behaviour of aorlta-core through its public interface.

#[path = "../common/mod.rs"]
mod common;
mod engine;
mod feedback;
mod kernel_episode;
mod library;
mod qa_example;
