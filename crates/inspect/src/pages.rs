//! The pages, made on the server with maud's `html!`, which escapes every value it is given
//! (`(x)` in a template is text, never markup): the run list, a run (summary, plot, filters and
//! the entry table), the table's rows alone (what the script swaps in after a filter), an
//! entry, a task, and two runs compared. Every form control has a label; every link and
//! control is reachable by keyboard.

use crate::compare::{Comparison, MatchedBy, gains_and_losses};
use crate::plot;
use crate::query::{Filter, Page, STATES, Sort, encode};
use crate::run::{Row, Run};
use crate::state::Inspector;
use aorlta_record::{LegState, RewardEntry};
use maud::{DOCTYPE, Markup, html};
use std::collections::BTreeMap;

/// The most options the task and reason filters list.
const MAX_CHOICES: usize = 2000;
/// The most changed entries the comparison lists.
const MAX_CHANGED: usize = 1000;

fn num(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(x) => format!("{x:.digits$}"),
        None => "–".into(),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The page around `body`.
pub(crate) fn layout(ins: &Inspector, title: &str, body: Markup) -> Markup {
    let base = &ins.base;
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · AORLTA inspector" }
                link rel="stylesheet" href=(format!("{base}/assets/inspect.css"));
                script src=(format!("{base}/assets/inspect.js")) defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header {
                    nav aria-label="Runs" {
                        a.home href=(format!("{base}/")) { "AORLTA inspector" }
                        @for (i, r) in ins.runs.iter().enumerate() {
                            a href=(format!("{base}/run/{i}")) { (r.name) }
                        }
                        @if ins.runs.len() > 1 {
                            a href=(format!("{base}/compare?a=0&b=1")) { "compare" }
                        }
                    }
                }
                main #main { (body) }
            }
        }
    }
}

/// The figures of a run as a definition list.
fn figures(run: &Run) -> Markup {
    let s = &run.summary;
    html! {
        dl.figures {
            div { dt { "entries" } dd { (s.count) } }
            div { dt { "scored" } dd { (s.scored) } }
            div { dt { "passed" } dd { (s.passed) } }
            div { dt { "unscored" } dd { (s.unscored) } }
            div { dt { "pass rate" } dd #pass-rate { (pct(s.pass_rate)) } }
            div { dt { "mean reward" } dd #mean-reward { (num(s.mean_reward, 4)) } }
            @if let Some(g) = s.geomean_speedup {
                div { dt { "geomean speedup (correct)" } dd { (format!("{g:.3}×")) } }
                @for (p, share) in &s.fast_p {
                    div { dt { (format!("fast_{p}")) } dd { (pct(*share)) } }
                }
            }
        }
    }
}

/// The list of runs.
pub(crate) fn index(ins: &Inspector) -> Markup {
    layout(
        ins,
        "Runs",
        html! {
            h1 { "Runs" }
            table {
                caption { "The runs this inspector serves" }
                thead { tr { th scope="col" { "run" } th scope="col" { "folder" } th scope="col" { "entries" } th scope="col" { "pass rate" } th scope="col" { "mean reward" } th scope="col" { "load" } } }
                tbody {
                    @for (i, r) in ins.runs.iter().enumerate() {
                        tr {
                            td { a href=(format!("{}/run/{i}", ins.base)) { (r.name) } }
                            td { code { (r.dir.display().to_string()) } }
                            td.n { (r.summary.count) }
                            td.n { (pct(r.summary.pass_rate)) }
                            td.n { (num(r.summary.mean_reward, 4)) }
                            td.n { (format!("{:.2} s", r.load_s)) }
                        }
                    }
                }
            }
            @if ins.runs.len() > 1 { (compare_form(ins, 0, 1)) }
        },
    )
}

/// A run: its summary, plot, filters and the first page of its table.
pub(crate) fn run(ins: &Inspector, n: usize, filter: &Filter, page: &Page) -> Markup {
    let r = &ins.runs[n];
    let s = &r.summary;
    let base = &ins.base;
    let action = format!("{base}/run/{n}");
    html! {
        h1 { "Run " (r.name) }
        p.load #load {
            @if r.file.as_os_str().is_empty() {
                (format!("{} entries, the latest this service answered, indexed in {:.2} s", s.count, r.load_s))
            } @else {
                (format!("{} entries loaded in {:.2} s from ", s.count, r.load_s))
                code { (r.file.display().to_string()) }
            }
        }
        section aria-labelledby="h-summary" {
            h2 #h-summary { "Summary" }
            (figures(r))
            div.cols {
                div {
                    h3 { "Legs" }
                    table {
                        thead { tr { th scope="col" { "leg" } th scope="col" { "clean" } th scope="col" { "broke" } th scope="col" { "unsettled" } th scope="col" { "skipped" } } }
                        tbody {
                            @for (name, c) in &s.legs {
                                tr { th scope="row" { (name) } @for x in c { td.n { (x) } } }
                            }
                        }
                    }
                }
                div {
                    h3 { "Reasons" }
                    @if s.reasons.is_empty() { p { "No leg failed." } }
                    @else {
                        table.reasons {
                            thead { tr { th scope="col" { "reason" } th scope="col" { "entries" } th scope="col" { span.sr { "share" } } } }
                            tbody {
                                @for (reason, c) in s.reasons.iter().take(15) {
                                    tr {
                                        td { a href=(format!("{action}?reason={}", encode(reason))) { (reason) } }
                                        td.n { (c) }
                                        td { meter min="0" max=(s.count) value=(c) { (c) } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            h3 { "Speedups" }
            @if s.speedups.is_empty() { p #no-speedups { "No speedup was measured in this run." } }
            @else { figure #speedup-plot { (plot::speedup_histogram(&s.speedups)) figcaption { (format!("{} correct candidates timed; geometric mean {:.3}×", s.speedups.len(), s.geomean_speedup.unwrap_or(f64::NAN))) } } }
        }
        section aria-labelledby="h-entries" {
            h2 #h-entries { "Entries" }
            form #filters method="get" action=(action) data-rows=(format!("{action}/rows")) {
                div.field {
                    label for="f-task" { "Task" }
                    select #f-task name="task" {
                        option value="" { "any task" }
                        @for t in s.tasks.keys().take(MAX_CHOICES) {
                            option value=(t) selected[*t == filter.task] { (t) }
                        }
                    }
                }
                @let languages: std::collections::BTreeSet<&str> = r.sources.tasks.values().filter_map(|t| t.language.as_deref()).collect();
                @if !languages.is_empty() {
                    div.field {
                        label for="f-language" { "Language" }
                        select #f-language name="language" {
                            option value="" { "any language" }
                            @for l in &languages {
                                option value=(l) selected[*l == filter.language] { (l) }
                            }
                        }
                    }
                }
                div.field {
                    label for="f-state" { "State" }
                    select #f-state name="state" {
                        option value="" { "any state" }
                        @for st in STATES {
                            option value=(st) selected[st == filter.state] { (state_label(st)) }
                        }
                    }
                }
                div.field {
                    label for="f-reason" { "Reason" }
                    select #f-reason name="reason" {
                        option value="" { "any reason" }
                        @for reason in r.reason_choices().take(MAX_CHOICES) {
                            option value=(reason) selected[reason == filter.reason] { (reason) }
                        }
                    }
                }
                div.field {
                    label for="f-min" { "Reward from" }
                    input #f-min type="number" step="any" name="min" value=(filter.min) size="6";
                }
                div.field {
                    label for="f-max" { "to" }
                    input #f-max type="number" step="any" name="max" value=(filter.max) size="6";
                }
                div.field.grow {
                    label for="f-q" { "Search" }
                    input #f-q type="search" name="q" value=(filter.q) placeholder="id, task, reason or completion text";
                }
                div.field {
                    label for="f-sort" { "Sort by" }
                    select #f-sort name="sort" {
                        @for (so, name) in Sort::ALL {
                            option value=(so.as_str()) selected[so == filter.sort] { (name) }
                        }
                    }
                }
                div.field {
                    label for="f-dir" { "Order" }
                    select #f-dir name="dir" {
                        option value="" { "ascending" }
                        option value="desc" selected[filter.dir == "desc"] { "descending" }
                    }
                }
                div.field { button type="submit" { "Apply" } }
            }
            div #rows aria-live="polite" { (rows(ins, n, filter, page)) }
        }
    }
}

fn state_label(s: &str) -> &'static str {
    match s {
        "passed" => "passed",
        "failed" => "failed (scored)",
        "unscored" => "unscored",
        "broke" => "a leg broke",
        "unsettled" => "a leg unsettled",
        "skipped" => "a leg skipped",
        _ => "?",
    }
}

/// The table's rows, its status line and its pager: what the script swaps in.
pub(crate) fn rows(ins: &Inspector, n: usize, filter: &Filter, page: &Page) -> Markup {
    let r = &ins.runs[n];
    let base = format!("{}/run/{n}", ins.base);
    let desc = filter.dir == "desc";
    html! {
        p.status #status data-total=(page.total) {
            (format!("{} of {} entries match · page {} of {} · {:.1} ms on the server", page.total, r.rows.len(), page.page, page.pages, page.ms))
        }
        table.entries {
            caption.sr { "Entries of " (r.name) ", sortable by the column headers" }
            thead {
                tr {
                    @for (so, name) in Sort::ALL {
                        @let here = so == filter.sort;
                        @let next_dir = if here && !desc { "desc" } else { "" };
                        th scope="col" aria-sort=(if !here { "none" } else if desc { "descending" } else { "ascending" }) {
                            a.sort href=(format!("{base}?{}", filter.query_string(1, so, next_dir))) {
                                (name) @if here { (if desc { " ▼" } else { " ▲" }) }
                            }
                        }
                    }
                    th scope="col" { "outcome" }
                    th scope="col" { "reasons" }
                }
            }
            tbody {
                @for i in &page.rows { (row(ins, n, r, &r.rows[*i])) }
            }
        }
        nav.pager aria-label="Pages" {
            @if page.page > 1 {
                a rel="prev" href=(format!("{base}?{}", filter.query_string(page.page - 1, filter.sort, &filter.dir))) { "← previous" }
            }
            span { (format!("page {} of {}", page.page, page.pages)) }
            @if page.page < page.pages {
                a rel="next" href=(format!("{base}?{}", filter.query_string(page.page + 1, filter.sort, &filter.dir))) { "next →" }
            }
        }
    }
}

fn row(ins: &Inspector, n: usize, r: &Run, row: &Row) -> Markup {
    let base = format!("{}/run/{n}", ins.base);
    html! {
        tr {
            td.n { (row.index + 1) }
            td { a href=(format!("{base}/entry/{}", row.index)) { (row.id) } }
            td {
                @if r.sources.tasks.contains_key(&row.task) {
                    a href=(format!("{base}/task/{}", encode(&row.task))) { (row.task) }
                } @else { (row.task) }
            }
            td.n { (num(row.reward, 3)) }
            td.n { (row.speedup.map(|s| format!("{s:.3}×")).unwrap_or_else(|| "–".into())) }
            td { span class=(format!("badge {}", row.outcome.as_str())) { (row.outcome.as_str()) } }
            td.reasons { (row.reasons.join(", ")) }
        }
    }
}

/// A compiler's diagnostics by the source line they name (`file(12): error …` from nvcc,
/// `file:12:3: error …` from clang and hipcc), each with the lines that follow it until the
/// next one that names a line (the quoted source and its caret).
pub(crate) fn diagnostics_by_line(diags: &str) -> BTreeMap<usize, Vec<String>> {
    let mut out: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut current: Option<usize> = None;
    for l in diags.lines() {
        let paren = l.find('(').and_then(|a| {
            let rest = &l[a + 1..];
            let end = rest.find(')')?;
            rest[end + 1..]
                .starts_with(':')
                .then(|| rest[..end].parse::<usize>().ok())?
        });
        let colon = || {
            let mut parts = l.split(':');
            parts.next()?;
            parts.next()?.trim().parse::<usize>().ok()
        };
        match paren.or_else(colon).filter(|n| *n > 0) {
            Some(n) => {
                out.entry(n).or_default().push(l.to_string());
                current = Some(n);
            }
            None if l.contains("error detected") || l.contains("errors detected") => current = None,
            None => {
                if let Some(d) = current.and_then(|n| out.get_mut(&n)?.last_mut()) {
                    d.push('\n');
                    d.push_str(l);
                }
            }
        }
    }
    out
}

/// An entry: its figures, legs, timing, completion, source with diagnostics, and details.
pub(crate) fn entry(ins: &Inspector, n: usize, i: usize, e: &RewardEntry) -> Markup {
    let r = &ins.runs[n];
    let base = format!("{}/run/{n}", ins.base);
    let row = &r.rows[i];
    let completion = r.sources.completions.get(&e.id);
    let extracted = completion.and_then(|c| r.sources.extract.as_ref().and_then(|x| x(&e.task, c)));
    let compile = e
        .legs
        .iter()
        .find(|l| l.adapter == "kernel-compile" && l.state != LegState::Clean);
    let diags = compile
        .map(|l| {
            l.reasons
                .iter()
                .map(|r| r.detail.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let by_line = diagnostics_by_line(&diags);
    let time = e
        .legs
        .iter()
        .find(|l| l.adapter == "kernel-time")
        .and_then(|l| l.detail.as_ref());
    html! {
        p { a href=(base) { "← run " (r.name) } }
        h1 { "Entry " (e.id) }
        dl.figures {
            div { dt { "task" } dd {
                @if r.sources.tasks.contains_key(&e.task) { a href=(format!("{base}/task/{}", encode(&e.task))) { (e.task) } }
                @else { (e.task) }
            } }
            div { dt { "outcome" } dd { span class=(format!("badge {}", row.outcome.as_str())) { (row.outcome.as_str()) } } }
            div { dt { "reward" } dd #reward { (num(e.reward, 4)) } }
            @if let Some(p) = &e.parts {
                div { dt { "parts" } dd { (format!("base {:.3} · broke-healthy {:.3} · length {:.3}", p.base, p.broke_healthy, p.length)) } }
            }
            div { dt { "profile" } dd { (e.profile) } }
            div { dt { "reward function" } dd { (e.reward_fn) } }
            div { dt { "seconds" } dd { (format!("{:.3}", e.elapsed_s)) } }
        }
        @if !e.reasons.is_empty() {
            h2 { "Why it is unscored" }
            ul { @for x in &e.reasons { li { code { (x.code) } " " (x.detail) } } }
        }
        section aria-labelledby="h-legs" {
            h2 #h-legs { "Legs" }
            table.legs {
                thead { tr { th scope="col" { "leg" } th scope="col" { "adapter" } th scope="col" { "state" } th scope="col" { "reasons" } th scope="col" { "seconds" } } }
                tbody {
                    @for l in &e.legs {
                        tr {
                            th scope="row" { (l.name) @if l.informational { " (informational)" } }
                            td { (l.adapter) }
                            td { span class=(format!("badge {}", l.state.as_str())) { (l.state.as_str()) } }
                            td { @for x in &l.reasons { div { code { (x.code) } " " (x.detail) } } }
                            td.n { (format!("{:.3}", l.elapsed_s)) @if l.cached { " (cached)" } }
                        }
                    }
                }
            }
        }
        @if let Some(t) = time {
            section #timing aria-labelledby="h-timing" {
                h2 #h-timing { "Timing" }
                @let g = |k: &str| t.get(k).and_then(serde_json::Value::as_f64);
                dl.figures {
                    @for (k, label) in [("s", "speedup"), ("ci_low", "interval low"), ("ci_high", "interval high"), ("floor", "noise floor"), ("median_candidate", "candidate median (s)"), ("median_reference", "reference median (s)"), ("rel_mad_candidate", "candidate relative MAD"), ("rel_mad_reference", "reference relative MAD")] {
                        @if let Some(v) = g(k) { div { dt { (label) } dd { (format!("{v:.4e}")) } } }
                    }
                    @for k in ["verdict", "pairs", "valid_pairs", "settled_at"] {
                        @if let Some(v) = t.get(k).filter(|v| !v.is_null()) { div { dt { (k) } dd { (v.to_string()) } } }
                    }
                }
                @let pairs: Vec<(f64, f64)> = t.get("timed_pairs").and_then(|p| p.as_array()).map(|a| a.iter().filter_map(|q| Some((q.get("candidate_s")?.as_f64()?, q.get("reference_s")?.as_f64()?))).collect()).unwrap_or_default();
                figure #timing-plot {
                    (plot::timing(g("s"), g("ci_low").zip(g("ci_high")), g("floor"), &pairs))
                    figcaption { "The speedup (dot), its interval (bar) and the noise floor (band); 1× is the dashed line." @if pairs.is_empty() { " The record kept no samples (a profile's keep-samples keeps them)." } }
                }
            }
        }
        section aria-labelledby="h-completion" {
            h2 #h-completion { "Completion" }
            @match completion {
                Some(c) => pre.completion #completion tabindex="0" { (c) },
                None => p { "The completion is not in the run folder. Start the inspector with the run's config (" code { "aorlta inspect CONFIG" } ") to see it." },
            }
        }
        @if extracted.is_none()
            && let Some(a) = e.legs.iter().find(|l| l.adapter == "parse").and_then(|l| l.detail.as_ref()?.get("answer")?.as_str())
        {
            section aria-labelledby="h-answer" {
                h2 #h-answer { "Extracted answer" }
                pre #answer tabindex="0" { (a) }
            }
        }
        @if let Some(src) = &extracted {
            section aria-labelledby="h-source" {
                h2 #h-source { "Extracted source" }
                ol.source #source tabindex="0" {
                    @for (k, line) in src.lines().enumerate() {
                        li { code { (line) } @if let Some(ds) = by_line.get(&(k + 1)) { @for d in ds { div.diag role="note" { (d) } } } }
                    }
                }
            }
        }
        @if !diags.is_empty() {
            section #diagnostics aria-labelledby="h-diag" {
                h2 #h-diag { "Compile diagnostics" }
                @if let Some(l) = compile { p { @for x in &l.reasons { code { (x.code) } " " } } }
                pre.diag tabindex="0" { (diags) }
            }
        }
        section aria-labelledby="h-details" {
            h2 #h-details { "Details" }
            @for l in &e.legs {
                @if let Some(d) = &l.detail {
                    details { summary { (l.name) " detail" } pre { (serde_json::to_string_pretty(d).unwrap_or_default()) } }
                }
            }
            details { summary { "version identity" } pre { (serde_json::to_string_pretty(&e.version).unwrap_or_default()) } }
        }
    }
}

/// A task: what it asks, its reference and spec, and its entries.
pub(crate) fn task(ins: &Inspector, n: usize, id: &str, page: &Page) -> Markup {
    let r = &ins.runs[n];
    let t = &r.sources.tasks[id];
    let filter = Filter {
        task: id.to_string(),
        ..Filter::default()
    };
    html! {
        p { a href=(format!("{}/run/{n}", ins.base)) { "← run " (r.name) } }
        h1 { "Task " (id) }
        p { "kind: " (t.kind) @if let Some(l) = &t.language { " · language: " (l) } }
        @if let Some(p) = &t.prompt { h2 { "Prompt" } pre tabindex="0" { (p) } }
        @if let Some(x) = &t.reference { h2 { "Reference" } pre tabindex="0" { (x) } }
        @if !t.spec.is_null() { h2 { "Spec" } pre tabindex="0" { (serde_json::to_string_pretty(&t.spec).unwrap_or_default()) } }
        h2 { "Entries" }
        div #rows { (rows(ins, n, &filter, page)) }
    }
}

fn compare_form(ins: &Inspector, a: usize, b: usize) -> Markup {
    html! {
        form.compare method="get" action=(format!("{}/compare", ins.base)) {
            div.field {
                label for="c-a" { "Before" }
                select #c-a name="a" { @for (i, r) in ins.runs.iter().enumerate() { option value=(i) selected[i == a] { (r.name) } } }
            }
            div.field {
                label for="c-b" { "After" }
                select #c-b name="b" { @for (i, r) in ins.runs.iter().enumerate() { option value=(i) selected[i == b] { (r.name) } } }
            }
            div.field { button type="submit" { "Compare" } }
        }
    }
}

/// Two runs side by side.
pub(crate) fn compare(ins: &Inspector, a: usize, b: usize, c: &Comparison) -> Markup {
    let (ra, rb) = (&ins.runs[a], &ins.runs[b]);
    let (sa, sb) = (&ra.summary, &rb.summary);
    let (gains, losses) = gains_and_losses(c);
    let delta = |x: Option<f64>, y: Option<f64>, d: usize| match (x, y) {
        (Some(x), Some(y)) => format!("{:+.d$}", y - x),
        _ => "–".into(),
    };
    html! {
        h1 { "Compare " (ra.name) " and " (rb.name) }
        (compare_form(ins, a, b))
        table #compare-figures {
            caption { "Figures of both runs" }
            thead { tr { th scope="col" { "figure" } th scope="col" { (ra.name) } th scope="col" { (rb.name) } th scope="col" { "change" } } }
            tbody {
                tr { th scope="row" { "entries" } td.n { (sa.count) } td.n { (sb.count) } td.n { (format!("{:+}", sb.count as i64 - sa.count as i64)) } }
                tr { th scope="row" { "pass rate" } td.n { (pct(sa.pass_rate)) } td.n { (pct(sb.pass_rate)) } td.n { (format!("{:+.1} pp", 100.0 * (sb.pass_rate - sa.pass_rate))) } }
                tr { th scope="row" { "mean reward" } td.n { (num(sa.mean_reward, 4)) } td.n { (num(sb.mean_reward, 4)) } td.n { (delta(sa.mean_reward, sb.mean_reward, 4)) } }
                tr { th scope="row" { "geomean speedup" } td.n { (num(sa.geomean_speedup, 3)) } td.n { (num(sb.geomean_speedup, 3)) } td.n { (delta(sa.geomean_speedup, sb.geomean_speedup, 3)) } }
                @for (k, (p, x)) in sa.fast_p.iter().enumerate() {
                    tr { th scope="row" { (format!("fast_{p}")) } td.n { (pct(*x)) } td.n { (sb.fast_p.get(k).map(|y| pct(y.1)).unwrap_or_default()) } td {} }
                }
            }
        }
        h2 { "Entries whose outcome changed" }
        p #changed-count { (format!("{} of {} entries found in both runs changed: {gains} now pass, {losses} no longer pass.", c.changed.len(), c.common))
            @if c.matched_by == MatchedBy::TaskRank { " The runs share no candidate id, so entries are paired by task and rank within the task (the k-th candidate of a task in one run with the k-th in the other)." } }
        @if c.changed.len() > MAX_CHANGED { p { (format!("The first {MAX_CHANGED} are listed.")) } }
        table #changed {
            thead { tr { th scope="col" { "id" } th scope="col" { "task" } th scope="col" { (ra.name) } th scope="col" { (rb.name) } th scope="col" { "reward" } } }
            tbody {
                @for x in c.changed.iter().take(MAX_CHANGED) {
                    tr {
                        td { (x.id) }
                        td { (x.task) }
                        td { a href=(format!("{}/run/{a}/entry/{}", ins.base, x.a)) { span class=(format!("badge {}", x.outcome_a.as_str())) { (x.outcome_a.as_str()) } } }
                        td { a href=(format!("{}/run/{b}/entry/{}", ins.base, x.b)) { span class=(format!("badge {}", x.outcome_b.as_str())) { (x.outcome_b.as_str()) } } }
                        td.n { (num(x.reward_a, 3)) " → " (num(x.reward_b, 3)) }
                    }
                }
            }
        }
    }
}

/// A page saying what was not found.
pub(crate) fn not_found(ins: &Inspector, what: &str) -> Markup {
    layout(
        ins,
        "Not found",
        html! { h1 { "Not found" } p { (what) } p { a href=(format!("{}/", ins.base)) { "The runs" } } },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_found_by_their_line_in_nvcc_and_clang_forms() {
        let d = "k.cu(12): error: expected a \";\"\n      }\n      ^\n\nk.cu:3:5: error: expected ';'\n1 error detected in the compilation of \"k.cu\".\nno line: here";
        let m = diagnostics_by_line(d);
        assert_eq!(m.keys().copied().collect::<Vec<_>>(), vec![3, 12]);
        assert_eq!(
            m[&12],
            vec!["k.cu(12): error: expected a \";\"\n      }\n      ^\n".to_string()]
        );
        assert_eq!(m[&3], vec!["k.cu:3:5: error: expected ';'".to_string()]);
    }
}
