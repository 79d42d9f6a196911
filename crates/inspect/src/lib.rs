//! The inspector: a web page over scored runs. [`Run::load`] indexes a run folder's
//! `rewards.jsonl` once (a compact row per entry, the line's place in the file kept so an entry
//! is read again only when its page is opened); [`app`] serves the pages and their JSON twins
//! over a set of runs: a run's summary with its speedup plot, its entries filtered, sorted and
//! paged on the server, one entry, one task, and two runs side by side.
//!
//! The pages are HTML made on the server with maud, whose `html!` escapes every string it is
//! given unless told otherwise, so text from a run (a completion is the model's, an id or a
//! task the pool's) cannot become markup; the plots are SVG made the same way. The stylesheet
//! and the one small script are compiled into the binary: the page fetches nothing from
//! elsewhere, and its Content-Security-Policy allows nothing but itself.

mod compare;
mod pages;
mod plot;
mod query;
mod routes;
mod run;
mod state;
mod tasks;

pub use compare::{Changed, Comparison, MatchedBy, compare};
pub use query::{Filter, Page, Sort};
pub use routes::{app, serve};
pub use run::{Extractor, LoadError, Outcome, Row, Run, RunSources, Summary, TaskView};
pub use state::Inspector;
pub use tasks::task_sources;
