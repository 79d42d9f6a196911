//! Behaviour of aorlta-core through its public interface.

mod common;
mod engine;
mod feedback;
mod hip_examples;
mod lane;
mod library;
mod qa_example;
mod triton_examples;
