//! `aorlta inspect RUN...`: serves the inspector over run folders (what `aorlta score` writes)
//! on 127.0.0.1 and prints its address. A run given by its config (the YAML `aorlta score`
//! read) also shows its completions (from its pools), its tasks and each kernel completion's
//! extracted source.

use anyhow::Context;
use aorlta_app::{RunConfig, run_sources};
use aorlta_inspect::{Inspector, Run, RunSources};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `aorlta inspect`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Run folders (holding `rewards.jsonl`), `rewards.jsonl` files, or run configs (YAML),
    /// whose pools and tasks the pages then show too.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// The port on 127.0.0.1 (0: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
}

/// Runs `aorlta inspect`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut runs = Vec::new();
    for p in &args.runs {
        let is_config = p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
        let (dir, sources) = if is_config {
            let cfg =
                RunConfig::load(p).with_context(|| format!("reading the run config {}", p.display()))?;
            let sources = run_sources(&cfg)
                .with_context(|| format!("reading the pools and tasks of {}", p.display()))?;
            (cfg.out.clone(), sources)
        } else {
            (p.clone(), RunSources::default())
        };
        let run = Run::load(&dir, sources).with_context(|| format!("loading the run {}", dir.display()))?;
        println!(
            "{}: {} entries loaded in {:.2} s from {}",
            run.name,
            run.rows.len(),
            run.load_s,
            run.file.display()
        );
        runs.push(run);
    }
    let ins = Arc::new(Inspector {
        runs,
        base: String::new(),
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, args.port))
            .await
            .with_context(|| format!("binding 127.0.0.1:{}", args.port))?;
        println!("inspector at http://{}/", listener.local_addr()?);
        std::io::stdout().flush()?;
        aorlta_inspect::serve(listener, ins, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("serving the inspector")
    })?;
    Ok(ExitCode::SUCCESS)
}
