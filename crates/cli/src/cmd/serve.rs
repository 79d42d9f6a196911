//! `aorlta serve --config FILE [--bind ADDR] [--ready-file PATH]`: the HTTP service (docs/SERVICE.md).
//! Runs until SIGTERM or SIGINT, then drains (stops accepting, answers what it accepted) and
//! exits 0; when `limits.drain-timeout` passes or a second signal comes first, it commits the
//! store and exits 1 without waiting for the rest.

use anyhow::Context;
use aorlta_server::ServeEnv;
use aorlta_server::{AppState, Drained, ServeConfig};
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `aorlta serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The service config (tasks, profiles, cache, gpus, lanes, limits).
    #[arg(long)]
    pub config: PathBuf,
    /// Listen here instead of the config's `bind` (`127.0.0.1:0` picks a free port).
    #[arg(long)]
    pub bind: Option<SocketAddr>,
    /// Once listening, write the bound address (`127.0.0.1:PORT`) to this file.
    #[arg(long)]
    pub ready_file: Option<PathBuf>,
}

/// Runs `aorlta serve`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
    // Before any thread of the service starts.
    aorlta_server::limit_arenas();
    let cfg = ServeConfig::load(&args.config)?;
    let bind = args.bind.unwrap_or(cfg.bind);
    // Before anything is loaded: a service reachable from other hosts needs a token.
    let token = aorlta_server::Token::load(&cfg.auth)?;
    aorlta_server::check_bind(bind, token.as_ref())?;
    let env = ServeEnv::build(&cfg)?;
    let state = Arc::new(AppState::from_config(&cfg, &args.config, env.env())?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("aorlta-io")
        .build()
        .context("starting the async runtime")?;
    let drained = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(bind)
            .await
            .with_context(|| format!("binding {bind}"))?;
        let addr = listener.local_addr().context("reading the bound address")?;
        tracing::info!(
            %addr,
            profiles = ?state.engines().keys().collect::<Vec<_>>(),
            default = state.default_profile(),
            tasks = state.tasks().len(),
            token = state.token().is_some(),
            compile_jail = %aorlta_kernel::compile_jail(),
            "listening"
        );
        println!("aorlta serve: listening on http://{addr}");
        if let Some(path) = &args.ready_file {
            write_ready(path, addr)?;
        }
        let (first, second) = aorlta_server::shutdown_signals();
        let drained = aorlta_server::serve(listener, state, first, second)
            .await
            .context("serving")?;
        anyhow::Ok(drained)
    })?;
    if drained == Drained::Whole {
        tracing::info!("drained; exiting");
        return Ok(ExitCode::SUCCESS);
    }
    // Connections and workers still running are not waited for.
    runtime.shutdown_background();
    tracing::warn!("exiting before every accepted request was answered");
    Ok(ExitCode::from(1))
}

/// Writes the address whole (a reader never sees half of it): to a temporary file, renamed.
fn write_ready(path: &Path, addr: SocketAddr) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{addr}\n")).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
