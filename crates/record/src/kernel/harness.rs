//! The harness job (what the service asks `aorlta-harness` to do) and the harness record (the
//! JSON file it writes back, the only thing the service reads from a harness run).
