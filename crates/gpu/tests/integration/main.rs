//! Behaviour of the harness through its public interfaces: the launch plans on the fake device
//! (order of steps, resets, reloads, flushes, verification points), every threat the fake
//! device can play, and the harness process protocol.

mod common;
mod plan_order;
mod process;
mod threats;
