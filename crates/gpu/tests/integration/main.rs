//! Behaviour of the harness through its public interfaces: the launch plans on the fake device
//! (order of steps, resets, reloads, flushes, verification points), every threat the fake
//! device can play, and the harness process protocol (also on the HIP backend without a
//! device).

mod common;
mod hip;
mod plan_order;
mod plans;
mod process;
mod threats;
