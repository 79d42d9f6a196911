//! Running a profile over candidates: the engine (one candidate, its legs through one door) and
//! the candidate pools it reads.

pub(crate) mod engine;
pub(crate) mod pool;
