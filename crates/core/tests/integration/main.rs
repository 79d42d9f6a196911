//! Behaviour of aorlta-core through its public interface.

mod engine;
mod qa_example;
