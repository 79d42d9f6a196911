//! Behaviour of aorlta-core through its public interface.

#[path = "../common/mod.rs"]
mod common;
mod engine;
mod feedback;
mod lane;
mod library;
mod qa_example;
