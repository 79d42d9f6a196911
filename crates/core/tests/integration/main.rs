//! Behaviour of aorlta-core through its public interface.

mod engine;
mod library;
mod qa_example;
