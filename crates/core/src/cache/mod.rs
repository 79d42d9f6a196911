//! The result cache.
