//! The judge's version, named in every measurement it makes.

/// The judge's version; part of every timing leg's version identity.
pub const JUDGE_VERSION: &str = "judge-4";
