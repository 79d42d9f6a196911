//! Normalised comparison of a candidate answer with a reference answer.
//!
//! (Interface fixed; implementation in progress.)

/// The outcome of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// Both were read and mean the same.
    Equal,
    /// Both were read and differ.
    NotEqual,
    /// The reference could not be interpreted (the task's fault).
    ReferenceUnreadable(String),
    /// The candidate could not be interpreted (the candidate's fault).
    CandidateUnreadable(String),
}

/// Compares two answers after normalisation. Linear in the input, bounded, never panics.
pub fn compare(reference: &str, candidate: &str) -> Comparison {
    if reference.trim() == candidate.trim() {
        Comparison::Equal
    } else {
        Comparison::NotEqual
    }
}
