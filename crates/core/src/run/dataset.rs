//! Datasets as trainers keep them (docs/DATA.md): a Parquet or JSONL file with a row per
//! prompt, in verl's layout by default (`prompt` as chat messages, `data_source`,
//! `reward_model.ground_truth`, `extra_info`) or any other through a column mapping, with the
//! model's response (or a list of responses) in a column of each row: a rollout dump.
//!
//! A run config's `dataset:` section names the file and how to read it; before scoring, its rows
//! become a pool (and, in answer mode, the Q&A tasks the rows carry) under `<out>/dataset/`,
//! and the run scores that pool as any other. In **answer mode** (the default) each row's
//! ground truth is the reference answer of a Q&A task of its own; in **id mode** the column
//! holds the id of a task of the config's `tasks:`. A row that lacks a column, or holds a value
//! of the wrong kind there, is reported with its place (`file:line` in JSONL, `file:row N` in Parquet) and the column,
//! and skipped.

use crate::{CoreError, Result};
use aorlta_check::SkippedLine;
use aorlta_record::{PoolLine, QaTask};
use serde::Deserialize;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a row's ground-truth column holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DatasetMode {
    /// The reference answer: each row is a Q&A task of its own.
    #[default]
    Answer,
    /// The id of a task of the config's `tasks:`.
    Id,
}

/// Where each part of a row is: a column name, or a dotted path into a struct column
/// (`reward_model.ground_truth`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Columns {
    /// The reference answer (answer mode) or the task id (id mode).
    pub answer: String,
    /// The model's response: a string, or a list of strings (one candidate each).
    pub completion: String,
    /// The prompt: a string, or chat messages (`[{role, content}]`; the last user message is
    /// kept). Informational: a Q&A reward does not read it. Absent is an empty prompt.
    pub prompt: String,
    /// The row's id; the row's number (from 1) when the column is absent.
    pub id: String,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            answer: "reward_model.ground_truth".into(),
            completion: "response".into(),
            prompt: "prompt".into(),
            id: "extra_info.index".into(),
        }
    }
}

/// A run config's `dataset:` section.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DatasetSpec {
    /// The file: `.parquet` (or `.pq`) is Parquet, anything else JSONL.
    pub file: PathBuf,
    /// Answer mode (the default) or id mode.
    #[serde(default)]
    pub mode: DatasetMode,
    /// The column mapping; verl's layout when absent.
    #[serde(default)]
    pub columns: Columns,
}

/// The pool and task files a dataset became, and the rows skipped.
#[derive(Debug)]
pub struct Materialised {
    /// The pool (JSONL), one candidate per response.
    pub pool: PathBuf,
    /// The Q&A tasks of answer mode (JSONL); `None` in id mode.
    pub tasks: Option<PathBuf>,
    /// Candidates written.
    pub candidates: usize,
    /// Rows skipped, with their `file:row` and why.
    pub skipped: Vec<SkippedLine>,
}

/// A row of a dataset: where it is in its file (`12`, a JSONL line; `row 12`, a Parquet row) and
/// the row, a JSON object, or why it could not be read.
pub type Row = (String, std::result::Result<Value, String>);

/// The rows of a dataset file.
pub fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let parquet = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"));
    if parquet {
        return read_parquet(path);
    }
    let text = std::fs::read(path).map_err(|e| CoreError::io(path, e))?;
    Ok(text
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .map(|(i, l)| {
            let row = match serde_json::from_slice::<Value>(l) {
                Ok(v) if v.is_object() => Ok(v),
                Ok(_) => Err("a row is a JSON object".to_string()),
                Err(e) => Err(e.to_string()),
            };
            ((i + 1).to_string(), row)
        })
        .collect())
}

fn read_parquet(path: &Path) -> Result<Vec<Row>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let bad = |e: parquet::errors::ParquetError| {
        CoreError::invalid(path, format!("not a readable Parquet file: {e}"))
    };
    let file = std::fs::File::open(path).map_err(|e| CoreError::io(path, e))?;
    let reader = SerializedFileReader::new(file).map_err(bad)?;
    let rows = reader.get_row_iter(None).map_err(bad)?;
    Ok(rows
        .enumerate()
        .map(|(i, r)| {
            let row = r.map(|row| row.to_json_value()).map_err(|e| e.to_string());
            (format!("row {}", i + 1), row)
        })
        .collect())
}

/// The value at a dotted path (`reward_model.ground_truth`); a column whose own name has a
/// dot is found first.
pub fn at<'a>(row: &'a Value, path: &str) -> Option<&'a Value> {
    if let Some(v) = row.get(path) {
        return Some(v);
    }
    path.split('.')
        .try_fold(row, |v, k| v.get(k))
        .filter(|v| !v.is_null())
}

/// A scalar as text: a string as it is, a number or boolean as JSON writes it.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A prompt as text: a string, or the content of the last user message of chat messages.
fn prompt_text(v: &Value) -> Option<String> {
    if let Some(s) = v.as_str() {
        return Some(s.to_string());
    }
    let msgs = v.as_array()?;
    let user = msgs
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .or(msgs.last())?;
    user.get("content").and_then(Value::as_str).map(str::to_string)
}

/// The responses of a row: a string, or a list of strings.
fn responses(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(a) => a.iter().map(|x| x.as_str().map(str::to_string)).collect(),
        _ => None,
    }
}

/// One row as its task (answer mode) and candidates, or why it is skipped.
fn row_items(
    spec: &DatasetSpec,
    stem: &str,
    number: usize,
    row: &Value,
) -> std::result::Result<(Option<QaTask>, Vec<PoolLine>), String> {
    let c = &spec.columns;
    let missing = |col: &str| format!("no column `{col}` (the `columns:` mapping names where each part is)");
    let answer_v = at(row, &c.answer).ok_or_else(|| missing(&c.answer))?;
    let answer =
        scalar(answer_v).ok_or_else(|| format!("column `{}` is not a string or a number", c.answer))?;
    let completions_v = at(row, &c.completion).ok_or_else(|| missing(&c.completion))?;
    let completions = responses(completions_v)
        .ok_or_else(|| format!("column `{}` is not a string or a list of strings", c.completion))?;
    let id = at(row, &c.id)
        .and_then(scalar)
        .unwrap_or_else(|| number.to_string());
    let (task_id, task) = match spec.mode {
        DatasetMode::Id => (answer, None),
        DatasetMode::Answer => {
            let prompt = at(row, &c.prompt).and_then(prompt_text).unwrap_or_default();
            let task_id = format!("{stem}#{id}");
            let task = QaTask {
                id: task_id.clone(),
                prompt,
                answer,
            };
            (task_id, Some(task))
        }
    };
    let many = completions.len() > 1;
    let lines = completions
        .into_iter()
        .enumerate()
        .map(|(k, completion)| PoolLine {
            task: task_id.clone(),
            completion,
            id: Some(if many {
                format!("{stem}#{id}/{k}")
            } else {
                format!("{stem}#{id}")
            }),
            sample: many.then_some(k as u64),
        })
        .collect();
    Ok((task, lines))
}

/// Writes the dataset's pool (and answer mode's tasks) under `dir`.
pub fn materialise(spec: &DatasetSpec, dir: &Path) -> Result<Materialised> {
    let rows = read_rows(&spec.file)?;
    let stem = spec
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into());
    std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    let pool = dir.join("pool.jsonl");
    let tasks = (spec.mode == DatasetMode::Answer).then(|| dir.join("tasks.jsonl"));
    let mut pool_out = Vec::new();
    let mut task_out = Vec::new();
    let mut skipped = Vec::new();
    let mut candidates = 0;
    let mut seen = std::collections::HashSet::new();
    for (i, (at, row)) in rows.iter().enumerate() {
        let place = format!("{}:{at}", spec.file.display());
        let items = row
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|r| row_items(spec, &stem, i + 1, r));
        match items {
            Ok((task, lines)) => {
                if let Some(t) = task {
                    if !seen.insert(t.id.clone()) {
                        skipped.push(SkippedLine {
                            place,
                            message: format!(
                                "the row id `{}` is not unique (column `{}`)",
                                t.id, spec.columns.id
                            ),
                        });
                        continue;
                    }
                    serde_json::to_writer(&mut task_out, &t)
                        .map_err(|e| CoreError::invalid(&spec.file, e.to_string()))?;
                    task_out.push(b'\n');
                }
                for l in lines {
                    serde_json::to_writer(&mut pool_out, &l)
                        .map_err(|e| CoreError::invalid(&spec.file, e.to_string()))?;
                    pool_out.push(b'\n');
                    candidates += 1;
                }
            }
            Err(message) => skipped.push(SkippedLine { place, message }),
        }
    }
    let write = |path: &Path, bytes: &[u8]| -> Result<()> {
        let mut f = std::fs::File::create(path).map_err(|e| CoreError::io(path, e))?;
        f.write_all(bytes).map_err(|e| CoreError::io(path, e))
    };
    write(&pool, &pool_out)?;
    if let Some(t) = &tasks {
        write(t, &task_out)?;
    }
    Ok(Materialised {
        pool,
        tasks,
        candidates,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(file: &Path) -> DatasetSpec {
        DatasetSpec {
            file: file.to_path_buf(),
            mode: DatasetMode::Answer,
            columns: Columns::default(),
        }
    }

    #[test]
    fn verl_rows_become_tasks_and_candidates_and_bad_rows_are_named() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("gsm.jsonl");
        let rows = [
            json!({"data_source": "openai/gsm8k",
                   "prompt": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "2+2?"}],
                   "reward_model": {"style": "rule", "ground_truth": "4"},
                   "extra_info": {"index": 7}, "response": "It is 4."}),
            json!({"prompt": "3+3?", "reward_model": {"ground_truth": 6},
                   "extra_info": {"index": 8}, "response": ["6", "five"]}),
            json!({"prompt": "no answer", "extra_info": {"index": 9}, "response": "x"}),
            json!({"prompt": "bad response", "reward_model": {"ground_truth": "1"}, "response": 3}),
        ];
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect::<String>() + "\nnot json\n";
        std::fs::write(&file, text).unwrap();
        let m = materialise(&spec(&file), &d.path().join("out")).unwrap();
        assert_eq!(m.candidates, 3);
        let tasks: Vec<QaTask> = std::fs::read_to_string(m.tasks.unwrap())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            tasks[0],
            QaTask {
                id: "gsm#7".into(),
                prompt: "2+2?".into(),
                answer: "4".into()
            }
        );
        assert_eq!(tasks[1].answer, "6", "a number is an answer too");
        let pool: Vec<PoolLine> = std::fs::read_to_string(&m.pool)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let ids: Vec<_> = pool.iter().map(|p| p.id.clone().unwrap()).collect();
        assert_eq!(ids, ["gsm#7", "gsm#8/0", "gsm#8/1"]);
        assert_eq!(pool[2].task, "gsm#8");
        let places: Vec<_> = m
            .skipped
            .iter()
            .map(|s| s.place.rsplit(':').next().unwrap().to_string())
            .collect();
        // JSONL rows are named by their lines (a blank line counts, and is no row).
        assert_eq!(places, ["3", "4", "6"]);
        assert!(
            m.skipped[0].message.contains("reward_model.ground_truth"),
            "{}",
            m.skipped[0]
        );
        assert!(m.skipped[1].message.contains("`response`"), "{}", m.skipped[1]);
    }

    #[test]
    fn id_mode_takes_the_column_as_a_task_id_and_writes_no_tasks() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("ids.jsonl");
        std::fs::write(&file, "{\"task\": \"q1\", \"out\": \"42\"}\n").unwrap();
        let s = DatasetSpec {
            file: file.clone(),
            mode: DatasetMode::Id,
            columns: Columns {
                answer: "task".into(),
                completion: "out".into(),
                ..Columns::default()
            },
        };
        let m = materialise(&s, d.path()).unwrap();
        assert!(m.tasks.is_none());
        let line: PoolLine = serde_json::from_str(std::fs::read_to_string(m.pool).unwrap().trim()).unwrap();
        assert_eq!(
            (line.task.as_str(), line.completion.as_str(), line.id.as_deref()),
            ("q1", "42", Some("ids#1"))
        );
    }
}
