//! The inspector's router: the pages, their JSON twins under `/api`, and the two assets
//! compiled into the binary. Every answer carries a Content-Security-Policy that lets a page
//! load only its own stylesheet and script, so even markup that slipped through could run
//! nothing. Tests call [`app`] with `oneshot`, without a socket.

use crate::compare::compare;
use crate::pages;
use crate::query::Filter;
use crate::state::Inspector;
use axum::Router;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use maud::Markup;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

const CSS: &str = include_str!("../assets/inspect.css");
const JS: &str = include_str!("../assets/inspect.js");
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

type Shared = State<Arc<Inspector>>;

/// The inspector's router over `ins`.
pub fn app(ins: Arc<Inspector>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/run/{n}", get(run_page))
        .route("/run/{n}/rows", get(rows))
        .route("/run/{n}/entry/{i}", get(entry))
        .route("/run/{n}/task/{id}", get(task))
        .route("/compare", get(compare_page))
        .route("/api/runs", get(api_runs))
        .route("/api/run/{n}/entries", get(api_entries))
        .route("/api/run/{n}/entry/{i}", get(api_entry))
        .route("/api/compare", get(api_compare))
        .route(
            "/assets/inspect.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], CSS) }),
        )
        .route(
            "/assets/inspect.js",
            get(|| async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], JS) }),
        )
        .layer(middleware::from_fn(secure))
        .with_state(ins)
}

async fn secure(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    resp
}

fn missing(ins: &Inspector, what: String) -> Response {
    (StatusCode::NOT_FOUND, pages::not_found(ins, &what)).into_response()
}

fn missing_json(what: String) -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"error": {"code": "not-found", "message": what}})),
    )
        .into_response()
}

fn page(ins: &Inspector, title: &str, body: Markup) -> Response {
    pages::layout(ins, title, body).into_response()
}

async fn index(State(ins): Shared) -> Markup {
    pages::index(&ins)
}

async fn run_page(State(ins): Shared, Path(n): Path<usize>, Query(f): Query<Filter>) -> Response {
    let Some(r) = ins.runs.get(n) else {
        return missing(&ins, format!("no run {n}"));
    };
    let p = f.apply(r);
    page(&ins, &r.name, pages::run(&ins, n, &f, &p))
}

async fn rows(State(ins): Shared, Path(n): Path<usize>, Query(f): Query<Filter>) -> Response {
    let Some(r) = ins.runs.get(n) else {
        return missing(&ins, format!("no run {n}"));
    };
    let p = f.apply(r);
    pages::rows(&ins, n, &f, &p).into_response()
}

async fn entry(State(ins): Shared, Path((n, i)): Path<(usize, usize)>) -> Response {
    let Some(r) = ins.runs.get(n).filter(|r| i < r.rows.len()) else {
        return missing(&ins, format!("no entry {i} in run {n}"));
    };
    match r.entry(i) {
        Ok(e) => page(&ins, &format!("Entry {}", e.id), pages::entry(&ins, n, i, &e)),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            pages::not_found(&ins, &e.to_string()),
        )
            .into_response(),
    }
}

async fn task(State(ins): Shared, Path((n, id)): Path<(usize, String)>) -> Response {
    let Some(r) = ins.runs.get(n).filter(|r| r.sources.tasks.contains_key(&id)) else {
        return missing(&ins, format!("no task `{id}` in run {n}"));
    };
    let f = Filter {
        task: id.clone(),
        ..Filter::default()
    };
    let p = f.apply(r);
    page(&ins, &format!("Task {id}"), pages::task(&ins, n, &id, &p))
}

#[derive(Debug, Deserialize)]
struct Pair {
    a: usize,
    b: usize,
}

async fn compare_page(State(ins): Shared, Query(q): Query<Pair>) -> Response {
    let (Some(a), Some(b)) = (ins.runs.get(q.a), ins.runs.get(q.b)) else {
        return missing(&ins, format!("no runs {} and {}", q.a, q.b));
    };
    let c = compare(a, b);
    page(&ins, "Compare", pages::compare(&ins, q.a, q.b, &c))
}

async fn api_runs(State(ins): Shared) -> Response {
    let runs: Vec<_> = ins
        .runs
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "dir": r.dir,
                "entries": r.rows.len(),
                "load_s": r.load_s,
                "has_completions": !r.sources.completions.is_empty(),
                "tasks_known": r.sources.tasks.len(),
                "summary": r.summary,
            })
        })
        .collect();
    axum::Json(runs).into_response()
}

async fn api_entries(State(ins): Shared, Path(n): Path<usize>, Query(f): Query<Filter>) -> Response {
    let Some(r) = ins.runs.get(n) else {
        return missing_json(format!("no run {n}"));
    };
    let p = f.apply(r);
    let rows: Vec<_> = p.rows.iter().map(|i| &r.rows[*i]).collect();
    axum::Json(
        json!({"total": p.total, "page": p.page, "pages": p.pages, "per": p.per, "ms": p.ms, "rows": rows}),
    )
    .into_response()
}

async fn api_entry(State(ins): Shared, Path((n, i)): Path<(usize, usize)>) -> Response {
    let Some(r) = ins.runs.get(n).filter(|r| i < r.rows.len()) else {
        return missing_json(format!("no entry {i} in run {n}"));
    };
    match r.entry(i) {
        Ok(e) => {
            let completion = r.sources.completions.get(&e.id);
            let extracted = completion.and_then(|c| r.sources.extract.as_ref().and_then(|x| x(&e.task, c)));
            axum::Json(json!({"entry": e, "completion": completion, "extracted": extracted})).into_response()
        }
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({"error": {"code": "unreadable", "message": e.to_string()}})),
        )
            .into_response(),
    }
}

async fn api_compare(State(ins): Shared, Query(q): Query<Pair>) -> Response {
    let (Some(a), Some(b)) = (ins.runs.get(q.a), ins.runs.get(q.b)) else {
        return missing_json(format!("no runs {} and {}", q.a, q.b));
    };
    let c = compare(a, b);
    axum::Json(json!({
        "a": {"name": a.name, "pass_rate": a.summary.pass_rate, "mean_reward": a.summary.mean_reward, "geomean_speedup": a.summary.geomean_speedup, "fast_p": a.summary.fast_p},
        "b": {"name": b.name, "pass_rate": b.summary.pass_rate, "mean_reward": b.summary.mean_reward, "geomean_speedup": b.summary.geomean_speedup, "fast_p": b.summary.fast_p},
        "matched_by": c.matched_by,
        "common": c.common,
        "changed": c.changed,
    }))
    .into_response()
}

/// Serves `ins` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    ins: Arc<Inspector>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app(ins))
        .with_graceful_shutdown(shutdown)
        .await
}
