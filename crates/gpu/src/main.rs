//! `aorlta-harness`: the kernel harness process. See the library's `serve` module.

fn main() {
    aorlta_gpu::set_eager_loading();
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(aorlta_gpu::cli(&args));
}
