//! The `aorlta` command's behaviour through the real binary and the public interfaces, one
//! module per command or suite, in one test binary (helpers shared in `common`).

mod bench_kernels;
mod bench_soak;
mod common;
mod configs;
mod harness_build;
mod hip_no_device;
mod inspect;
mod kernel_profile;
mod nvrtc_compile;
mod score;
mod score_episodes;
mod serve_service;
mod task_check;
mod task_generate;
mod task_import;
mod timecheck;
mod timeline;
mod validate_fake;
mod validate_fake_hip;
mod validate_fake_plans;
mod validate_fake_triton;
