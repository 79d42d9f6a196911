//! The inspector through its router, without a socket: the pages and their JSON twins over run
//! folders written here, text from a run kept as text, diagnostics and timing on an entry's
//! page, two runs compared, and a 100,000-entry run loaded and filtered.

use aorlta_inspect::{Extractor, Filter, Inspector, Run, RunSources, TaskView, app};
use aorlta_record::{LegResult, LegState, Parts, Reason, RewardEntry};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

/// An entry of `task` with a parse leg and a check leg in `state` (with reason `code`), and a
/// timing leg measuring `speedup` when given.
fn entry(id: &str, task: &str, state: LegState, code: &str, speedup: Option<f64>) -> RewardEntry {
    let mut parse = LegResult::clean("parse", "parse");
    parse.detail = Some(json!({"answer": format!("answer of {id}")}));
    let mut legs = vec![parse];
    legs.push(if state == LegState::Clean {
        LegResult::clean("check", "reference-match")
    } else {
        LegResult::with_state(
            "check",
            "reference-match",
            state,
            Reason::new(code, format!("{code} here")),
        )
    });
    if let Some(s) = speedup {
        let mut t = LegResult::clean("ref.speedup", "kernel-time");
        t.reasons = vec![Reason::new("faster", "faster")];
        t.detail = Some(
            json!({"s": s, "ci_low": s * 0.9, "ci_high": s * 1.1, "floor": 0.02,
            "timed_pairs": [{"candidate_s": 1e-3, "reference_s": 2e-3}, {"candidate_s": 1.1e-3, "reference_s": 2.1e-3}]}),
        );
        legs.push(t);
    }
    let scored = state != LegState::Unsettled;
    let reward = match state {
        LegState::Clean => Some(1.0),
        LegState::Broke => Some(-0.5),
        _ => None,
    };
    RewardEntry {
        format: aorlta_record::FORMAT_VERSION,
        id: id.into(),
        task: task.into(),
        reward,
        scored,
        parts: reward.map(|r| Parts {
            base: r,
            broke_healthy: 0.0,
            length: 0.0,
        }),
        reasons: vec![],
        legs,
        profile: "p".into(),
        reward_fn: "rewardfn.base".into(),
        version: Default::default(),
        elapsed_s: 0.001,
        feedback: None,
    }
}

fn write_run(dir: &Path, entries: &[RewardEntry]) {
    std::fs::create_dir_all(dir).unwrap();
    let text: String = entries
        .iter()
        .map(|e| serde_json::to_string(e).unwrap() + "\n")
        .collect();
    std::fs::write(dir.join("rewards.jsonl"), text).unwrap();
}

/// Ten entries: `q0`…`q9` over tasks `a` and `b`; even ones clean, 3 and 7 unsettled, the rest
/// broke `wrong-answer`.
fn ten() -> Vec<RewardEntry> {
    (0..10)
        .map(|i| {
            let state = match i {
                _ if i % 2 == 0 => LegState::Clean,
                3 | 7 => LegState::Unsettled,
                _ => LegState::Broke,
            };
            let code = if state == LegState::Unsettled {
                "timeout"
            } else {
                "wrong-answer"
            };
            entry(&format!("q{i}"), if i < 5 { "a" } else { "b" }, state, code, None)
        })
        .collect()
}

async fn get(ins: &Arc<Inspector>, uri: &str) -> (StatusCode, String, axum::http::HeaderMap) {
    let resp = app(Arc::clone(ins))
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap(), headers)
}

async fn get_json(ins: &Arc<Inspector>, uri: &str) -> (StatusCode, Value) {
    let (st, body, _) = get(ins, uri).await;
    (st, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn inspector(runs: Vec<Run>) -> Arc<Inspector> {
    Arc::new(Inspector {
        runs,
        base: String::new(),
    })
}

fn ids(v: &Value) -> Vec<String> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_pages_and_their_json_answer_with_filters_sorts_and_pages() {
    let dir = tempfile::tempdir().unwrap();
    write_run(&dir.path().join("r1"), &ten());
    let ins = inspector(vec![
        Run::load(&dir.path().join("r1"), RunSources::default()).unwrap(),
    ]);

    let (st, v) = get_json(&ins, "/api/runs").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v[0]["name"], "r1");
    assert_eq!(v[0]["entries"], 10);
    let s = &v[0]["summary"];
    assert_eq!(
        (s["passed"].as_u64(), s["unscored"].as_u64(), s["scored"].as_u64()),
        (Some(5), Some(2), Some(8))
    );
    assert!((s["pass_rate"].as_f64().unwrap() - 0.5).abs() < 1e-12);
    // Five clean at 1.0, three broke at -0.5: (5 - 1.5) / 8.
    assert!((s["mean_reward"].as_f64().unwrap() - 3.5 / 8.0).abs() < 1e-12);
    assert_eq!(
        s["reasons"],
        json!([["check: wrong-answer", 3], ["check: timeout", 2]])
    );

    for (query, want) in [
        (
            "",
            vec!["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9"],
        ),
        ("?task=a", vec!["q0", "q1", "q2", "q3", "q4"]),
        ("?state=passed", vec!["q0", "q2", "q4", "q6", "q8"]),
        ("?state=failed", vec!["q1", "q5", "q9"]),
        ("?state=unscored", vec!["q3", "q7"]),
        ("?state=unsettled&task=b", vec!["q7"]),
        ("?reason=check%3A%20wrong-answer", vec!["q1", "q5", "q9"]),
        ("?min=0&max=2", vec!["q0", "q2", "q4", "q6", "q8"]),
        ("?max=0", vec!["q1", "q5", "q9"]),
        ("?q=Q7", vec!["q7"]),
        ("?q=timeout%20here", vec!["q3", "q7"]),
        ("?sort=reward&dir=desc&per=3", vec!["q0", "q2", "q4"]),
        ("?sort=reward&per=4", vec!["q1", "q5", "q9", "q0"]),
        ("?sort=id&dir=desc&per=2&page=2", vec!["q7", "q6"]),
        ("?dir=desc&per=3&page=99", vec!["q0"]),
    ] {
        let (st, v) = get_json(&ins, &format!("/api/run/0/entries{query}")).await;
        assert_eq!(st, StatusCode::OK, "{query}");
        assert_eq!(ids(&v), want, "{query}: {v}");
    }
    let (_, v) = get_json(&ins, "/api/run/0/entries?per=3&page=2").await;
    assert_eq!(
        (v["total"].as_u64(), v["pages"].as_u64(), v["page"].as_u64()),
        (Some(10), Some(4), Some(2))
    );
    // Sorting by reward puts the unscored last whichever the direction.
    let (_, v) = get_json(&ins, "/api/run/0/entries?sort=reward&dir=desc").await;
    assert_eq!(ids(&v)[8..], ["q3", "q7"]);

    let (st, html, headers) = get(&ins, "/run/0?state=failed").await;
    assert_eq!(st, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("default-src 'none'"),
        "{csp}"
    );
    assert!(html.contains("3 of 10 entries match"), "{html}");
    assert!(html.contains(r#"<option value="failed" selected>"#));
    assert!(html.contains(r#"<label for="f-q">Search</label>"#));
    assert!(html.contains(r#"10 entries loaded in"#));
    assert!(html.contains("No speedup was measured"));
    let (st, frag, _) = get(&ins, "/run/0/rows?q=q5").await;
    assert_eq!(st, StatusCode::OK);
    assert!(
        frag.starts_with(r#"<p class="status" id="status" data-total="1">"#),
        "{frag}"
    );
    assert!(frag.contains(r#"<a href="/run/0/entry/5">q5</a>"#));

    let (st, html, _) = get(&ins, "/run/0/entry/1").await;
    assert_eq!(st, StatusCode::OK);
    assert!(html.contains("Entry q1") && html.contains("wrong-answer here"));
    assert!(html.contains("The completion is not in the run folder"));
    assert!(
        html.contains(r#"<pre id="answer" tabindex="0">answer of q1</pre>"#),
        "{html}"
    );
    let (st, v) = get_json(&ins, "/api/run/0/entry/1").await;
    assert_eq!(
        (st, &v["entry"]["id"], &v["completion"]),
        (StatusCode::OK, &json!("q1"), &Value::Null)
    );

    for (uri, status) in [
        ("/run/1", StatusCode::NOT_FOUND),
        ("/run/0/entry/10", StatusCode::NOT_FOUND),
        ("/run/0/task/a", StatusCode::NOT_FOUND),
        ("/compare?a=0&b=3", StatusCode::NOT_FOUND),
        ("/api/run/0/entry/99", StatusCode::NOT_FOUND),
    ] {
        assert_eq!(get(&ins, uri).await.0, status, "{uri}");
    }
    let (st, css, h) = get(&ins, "/assets/inspect.css").await;
    assert_eq!(
        (st, h[header::CONTENT_TYPE].to_str().unwrap()),
        (StatusCode::OK, "text/css; charset=utf-8")
    );
    assert!(css.contains(":focus-visible"));
    let (st, js, h) = get(&ins, "/assets/inspect.js").await;
    assert_eq!(st, StatusCode::OK);
    assert!(
        h[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(js.contains("replaceState"));
}

#[tokio::test]
async fn text_from_a_run_is_escaped_everywhere_it_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let evil_id = r#"<script>alert("id")</script>"#;
    let evil_task = r#"<img src=x onerror=alert(1)>"#;
    let mut e = entry(evil_id, evil_task, LegState::Broke, "wrong-answer", None);
    e.legs[1].reasons[0].detail = "</td><script>alert('reason')</script>".into();
    e.legs[1].detail = Some(json!({"answer": "<script>alert('detail')</script>"}));
    write_run(&dir.path().join("evil"), &[e.clone()]);
    write_run(
        &dir.path().join("evil2"),
        &[entry(evil_id, evil_task, LegState::Clean, "", None)],
    );
    let completion = "</pre><script>alert('completion')</script><pre>";
    let sources = RunSources {
        completions: [(evil_id.to_string(), completion.to_string())].into(),
        tasks: [(
            evil_task.to_string(),
            TaskView {
                kind: "qa".into(),
                language: None,
                prompt: Some("<script>alert('prompt')</script>".into()),
                reference: Some("<b>2</b>".into()),
                spec: Value::Null,
            },
        )]
        .into(),
        extract: Some(Arc::new(|_: &str, c: &str| Some(c.to_string())) as Extractor),
    };
    let ins = inspector(vec![
        Run::load(&dir.path().join("evil"), sources).unwrap(),
        Run::load(&dir.path().join("evil2"), RunSources::default()).unwrap(),
    ]);
    let task_uri = format!("/run/0/task/{}", aorlta_inspect_encode(evil_task));
    for uri in [
        "/",
        "/run/0",
        "/run/0/rows",
        "/run/0/entry/0",
        task_uri.as_str(),
        "/compare?a=0&b=1",
        "/run/0?q=%3Cscript%3E",
    ] {
        let (st, html, _) = get(&ins, uri).await;
        assert_eq!(st, StatusCode::OK, "{uri}");
        // The only script element is the inspector's own, on full pages.
        let own = usize::from(uri != "/run/0/rows");
        assert_eq!(html.matches("<script").count(), own, "{uri}: {html}");
        assert!(!html.contains("<img"), "{uri}");
        assert!(!html.contains("</pre><script"), "{uri}");
    }
    let (_, html, _) = get(&ins, "/run/0/entry/0").await;
    assert!(
        html.contains("&lt;/pre&gt;&lt;script&gt;alert('completion')&lt;/script&gt;&lt;pre&gt;"),
        "{html}"
    );
    assert!(html.contains("&lt;script&gt;alert(&quot;id&quot;)&lt;/script&gt;"));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    let (_, html, _) = get(&ins, &task_uri).await;
    assert!(
        html.contains("&lt;script&gt;alert('prompt')&lt;/script&gt;")
            && html.contains("&lt;b&gt;2&lt;/b&gt;")
    );
    // The search finds the completion's text.
    let (_, v) = get_json(&ins, "/api/run/0/entries?q=alert('completion')").await;
    assert_eq!(v["total"], 1);
    // The JSON twin carries the text as it is.
    let (_, v) = get_json(&ins, "/api/run/0/entry/0").await;
    assert_eq!(v["completion"], completion);
}

/// The test's own percent-encoding of a path segment.
fn aorlta_inspect_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[tokio::test]
async fn an_entry_shows_its_source_with_diagnostics_at_their_lines_and_its_timing() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = entry("k/compile-error", "vector_add", LegState::Clean, "", None);
    broken.legs[1] = LegResult::with_state(
        "compile",
        "kernel-compile",
        LegState::Broke,
        Reason::new(
            "compile-error",
            "k.cu(2): error: expected a \";\"\n      }\n      ^\n1 error detected in the compilation of \"k.cu\".",
        ),
    );
    let fast = entry("k/fast", "vector_add", LegState::Clean, "", Some(1.8));
    let slow = entry("k/slow", "vector_add", LegState::Clean, "", Some(0.6));
    write_run(&dir.path().join("k"), &[broken, fast, slow]);
    let completion = "```cuda\nint main() {\n  x = 1\n}\n```";
    let sources = RunSources {
        completions: [("k/compile-error".to_string(), completion.to_string())].into(),
        tasks: Default::default(),
        extract: Some(Arc::new(|_: &str, _: &str| Some("int main() {\n  x = 1\n}".to_string())) as Extractor),
    };
    let ins = inspector(vec![Run::load(&dir.path().join("k"), sources).unwrap()]);
    let (st, html, _) = get(&ins, "/run/0/entry/0").await;
    assert_eq!(st, StatusCode::OK);
    // The diagnostic sits under line 2 of the source, with its quoted line and caret.
    let source = &html[html
        .find(r#"<ol class="source" id="source""#)
        .expect("the source")..];
    let lines: Vec<&str> = source.split("<li>").skip(1).collect();
    assert_eq!(lines.len(), 3);
    assert!(!lines[0].contains("diag"));
    assert!(lines[1].contains("<code>  x = 1</code><div class=\"diag\" role=\"note\">k.cu(2): error: expected a &quot;;&quot;\n      }\n      ^</div>"), "{}", lines[1]);
    assert!(html.contains(r#"<section id="diagnostics""#));
    assert!(html.contains("<code>compile-error</code>"));
    assert!(!html.contains(r#"id="timing""#));

    let (_, html, _) = get(&ins, "/run/0/entry/1").await;
    let timing = &html[html.find(r#"id="timing-plot""#).expect("the timing plot")..];
    assert!(timing.contains(r#"<circle class="point""#));
    assert!(timing.contains(r#"<line class="ci""#) && timing.contains(r#"<rect class="floor""#));
    assert_eq!(timing.matches(r#"<circle class="cand""#).count(), 2);
    assert_eq!(timing.matches(r#"<circle class="refr""#).count(), 2);

    let (_, html, _) = get(&ins, "/run/0").await;
    let plot = &html[html.find(r#"id="speedup-plot""#).expect("the speedup plot")..];
    assert!(plot.contains("Histogram of 2 measured speedups"));
    assert_eq!(plot.matches(r#"<rect class="bar""#).count(), 20);
    assert!(html.contains("geomean speedup (correct)"));
    let (_, v) = get_json(&ins, "/api/run/0/entries?sort=speedup&dir=desc").await;
    assert_eq!(ids(&v), ["k/fast", "k/slow", "k/compile-error"]);
}

#[tokio::test]
async fn two_runs_compare_by_candidate_id_else_by_task_and_rank() {
    let dir = tempfile::tempdir().unwrap();
    let before = ten();
    let mut after = ten();
    // q1 now passes, q2 now fails, q3 is scored (and fails); q9 is gone, q10 is new.
    after[1] = entry("q1", "a", LegState::Clean, "", None);
    after[2] = entry("q2", "a", LegState::Broke, "wrong-answer", None);
    after[3] = entry("q3", "a", LegState::Broke, "wrong-answer", None);
    after[9] = entry("q10", "b", LegState::Clean, "", None);
    write_run(&dir.path().join("before"), &before);
    write_run(&dir.path().join("after"), &after);
    let ins = inspector(vec![
        Run::load(&dir.path().join("before"), RunSources::default()).unwrap(),
        Run::load(&dir.path().join("after"), RunSources::default()).unwrap(),
    ]);
    let (st, v) = get_json(&ins, "/api/compare?a=0&b=1").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["common"], 9);
    let changed: Vec<(&str, &str, &str)> = v["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap(),
                c["outcome_a"].as_str().unwrap(),
                c["outcome_b"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        changed,
        [
            ("q1", "failed", "passed"),
            ("q2", "passed", "failed"),
            ("q3", "unscored", "failed")
        ]
    );
    assert_eq!(
        (v["a"]["pass_rate"].as_f64(), v["b"]["pass_rate"].as_f64()),
        (Some(0.5), Some(0.6))
    );
    let (st, html, _) = get(&ins, "/compare?a=0&b=1").await;
    assert_eq!(st, StatusCode::OK);
    assert!(
        html.contains("3 of 9 entries found in both runs changed: 1 now pass, 1 no longer pass."),
        "{html}"
    );
    assert!(html.contains(r#"<a href="/run/1/entry/1"><span class="badge passed">passed</span></a>"#));
    assert_eq!(v["matched_by"], "id");

    // Runs that share no candidate id (two checkpoints' pools of the same tasks) pair the k-th
    // entry of a task with the k-th of that task in the other.
    let renamed: Vec<RewardEntry> = after
        .iter()
        .map(|e| RewardEntry {
            id: format!("x-{}", e.id),
            ..e.clone()
        })
        .collect();
    write_run(&dir.path().join("renamed"), &renamed);
    let ins = inspector(vec![
        Run::load(&dir.path().join("before"), RunSources::default()).unwrap(),
        Run::load(&dir.path().join("renamed"), RunSources::default()).unwrap(),
    ]);
    let (_, v) = get_json(&ins, "/api/compare?a=0&b=1").await;
    assert_eq!(
        (&v["matched_by"], &v["common"]),
        (&json!("task-rank"), &json!(10))
    );
    let changed: Vec<&str> = v["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["q1 → x-q1", "q2 → x-q2", "q3 → x-q3", "q9 → x-q10"]);
    let (_, html, _) = get(&ins, "/compare?a=0&b=1").await;
    assert!(html.contains("paired by task and rank within the task"));
}

#[tokio::test]
async fn entries_filter_by_their_task_language_when_the_tasks_are_known() {
    let dir = tempfile::tempdir().unwrap();
    write_run(&dir.path().join("r"), &ten());
    let task = |language: &str| TaskView {
        kind: "kernel".into(),
        language: Some(language.into()),
        prompt: None,
        reference: None,
        spec: Value::Null,
    };
    let sources = RunSources {
        tasks: [("a".to_string(), task("cuda")), ("b".to_string(), task("triton"))].into(),
        ..RunSources::default()
    };
    let ins = inspector(vec![Run::load(&dir.path().join("r"), sources).unwrap()]);
    let (_, v) = get_json(&ins, "/api/run/0/entries?language=triton").await;
    assert_eq!(ids(&v), ["q5", "q6", "q7", "q8", "q9"]);
    let (_, v) = get_json(&ins, "/api/run/0/entries?language=cuda&state=passed").await;
    assert_eq!(ids(&v), ["q0", "q2", "q4"]);
    let (_, v) = get_json(&ins, "/api/run/0/entries?language=hip").await;
    assert_eq!(v["total"], 0);
    let (_, html, _) = get(&ins, "/run/0?language=triton").await;
    assert!(html.contains(r#"<label for="f-language">Language</label>"#));
    assert!(
        html.contains(r#"<option value="triton" selected>triton</option>"#),
        "{html}"
    );
    // Without the tasks there is no language to filter by.
    write_run(&dir.path().join("bare"), &ten());
    let ins = inspector(vec![
        Run::load(&dir.path().join("bare"), RunSources::default()).unwrap(),
    ]);
    let (_, html, _) = get(&ins, "/run/0").await;
    assert!(!html.contains("f-language"));
}

#[tokio::test]
async fn the_inspector_answers_under_a_path_prefix() {
    let dir = tempfile::tempdir().unwrap();
    write_run(&dir.path().join("r"), &ten());
    let ins = Arc::new(Inspector {
        runs: vec![Run::load(&dir.path().join("r"), RunSources::default()).unwrap()],
        base: "/ui".into(),
    });
    let (_, html, _) = get(&ins, "/run/0").await;
    assert!(html.contains(r#"href="/ui/assets/inspect.css""#));
    assert!(html.contains(r#"action="/ui/run/0" data-rows="/ui/run/0/rows""#));
    assert!(html.contains(r#"<a href="/ui/run/0/entry/0">q0</a>"#));
}

/// 100,000 distinct entries load in one pass and every filter answers well under a second (the
/// browser test measures the same through the page).
#[test]
fn a_hundred_thousand_entries_load_once_and_filter_fast() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("big");
    std::fs::create_dir_all(&run_dir).unwrap();
    let mut text = String::new();
    let base = [
        entry("x", "t", LegState::Clean, "", None),
        entry("x", "t", LegState::Broke, "wrong-answer", None),
        entry("x", "t", LegState::Unsettled, "timeout", None),
    ];
    for i in 0..100_000 {
        let mut e = base[i % 3].clone();
        e.id = format!("c{i}");
        e.task = format!("t{}", i % 500);
        text.push_str(&serde_json::to_string(&e).unwrap());
        text.push('\n');
    }
    std::fs::write(run_dir.join("rewards.jsonl"), text).unwrap();
    let run = Run::load(&run_dir, RunSources::default()).unwrap();
    assert_eq!(run.rows.len(), 100_000);
    assert_eq!(run.summary.tasks.len(), 500);
    println!("100,000 entries loaded in {:.2} s", run.load_s);
    for (f, total) in [
        (Filter::default(), 100_000),
        (
            Filter {
                state: "failed".into(),
                ..Filter::default()
            },
            33_333,
        ),
        (
            Filter {
                task: "t7".into(),
                ..Filter::default()
            },
            200,
        ),
        (
            Filter {
                q: "c9999".into(),
                ..Filter::default()
            },
            11,
        ),
        (
            Filter {
                sort: aorlta_inspect::Sort::Reward,
                dir: "desc".into(),
                ..Filter::default()
            },
            100_000,
        ),
    ] {
        let p = f.apply(&run);
        assert_eq!(p.total, total, "{f:?}");
        assert_eq!(p.rows.len(), total.min(50));
        println!("{f:?}: {} rows in {:.1} ms", p.total, p.ms);
        assert!(p.ms < 1000.0, "{f:?} took {} ms", p.ms);
    }
}
