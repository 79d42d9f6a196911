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
//!
//! The file is read twice, one row in memory at a time (a JSONL line, a Parquet row group's
//! pages): first for the ids the rows give, so that a row without one never takes one of them,
//! then for the rows, each written to the pool as it is read. Memory grows with the number of
//! rows only by their ids. Parquet text stored as plain `BYTE_ARRAY` (no UTF-8 annotation) is
//! read as text.

use aorlta_check::SkippedLine;
use aorlta_check::{CoreError, Result};
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
pub(crate) struct Materialised {
    /// The pool (JSONL), one candidate per response.
    pub pool: PathBuf,
    /// The Q&A tasks of answer mode (JSONL); `None` in id mode.
    pub tasks: Option<PathBuf>,
    /// Candidates written (the run counts its pool's lines itself; the tests read this).
    #[cfg_attr(not(test), allow(dead_code))]
    pub candidates: usize,
    /// Rows skipped, with their `file:row` and why.
    pub skipped: Vec<SkippedLine>,
}

/// A row of a dataset: where it is in its file (`12`, a JSONL line; `row 12`, a Parquet row) and
/// the row, a JSON object, or why it could not be read.
pub(crate) type Row = (String, std::result::Result<Value, String>);

/// The longest JSONL row read; a longer line is skipped, saying so, without being held whole.
pub(crate) const MAX_ROW_BYTES: usize = 64 << 20;

/// The rows of a dataset file, all at once (for a small file; [`for_each_row`] streams).
#[cfg(test)]
fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for_each_row(path, &mut |row| {
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

/// Calls `f` on each row of a dataset file in turn, holding one row at a time: a JSONL file
/// line by line, a Parquet file row group by row group. A row is a JSON object, or why it is
/// not one.
pub(crate) fn for_each_row(path: &Path, f: &mut dyn FnMut(Row) -> Result<()>) -> Result<()> {
    rows_bounded(path, MAX_ROW_BYTES, f)
}

/// [`for_each_row`] with JSONL rows of at most `max_row` bytes.
fn rows_bounded(path: &Path, max_row: usize, f: &mut dyn FnMut(Row) -> Result<()>) -> Result<()> {
    let parquet = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"));
    if parquet {
        return parquet_rows(path, f);
    }
    use std::io::BufRead;
    let file = aorlta_check::open_input(path)?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        number += 1;
        // A line is read up to its newline, but never more than the longest row and one byte.
        let got = std::io::Read::take(&mut r, max_row as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| CoreError::io(path, e))?;
        if got == 0 {
            return Ok(());
        }
        if line.len() > max_row && line.last() != Some(&b'\n') {
            // Pass over the rest of the long line.
            loop {
                let buf = r.fill_buf().map_err(|e| CoreError::io(path, e))?;
                if buf.is_empty() {
                    break;
                }
                match memchr::memchr(b'\n', buf) {
                    Some(k) => {
                        r.consume(k + 1);
                        break;
                    }
                    None => {
                        let n = buf.len();
                        r.consume(n);
                    }
                }
            }
            f((
                number.to_string(),
                Err(format!("the row is longer than {max_row} bytes")),
            ))?;
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let row = match serde_json::from_slice::<Value>(&line) {
            Ok(v) if v.is_object() => Ok(v),
            Ok(_) => Err("a row is a JSON object".to_string()),
            Err(e) => Err(e.to_string()),
        };
        f((number.to_string(), row))?;
    }
}

fn parquet_rows(path: &Path, f: &mut dyn FnMut(Row) -> Result<()>) -> Result<()> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let bad = |e: parquet::errors::ParquetError| {
        CoreError::invalid(path, format!("not a readable Parquet file: {e}"))
    };
    let file = aorlta_check::open_input(path)?;
    let reader = SerializedFileReader::new(file).map_err(bad)?;
    // Row group by row group: one group's pages are in memory at a time.
    let mut number = 0;
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(bad)?;
        for r in group.get_row_iter(None).map_err(bad)? {
            number += 1;
            let row = r.map(|row| row_json(&row)).map_err(|e| e.to_string());
            f((format!("row {number}"), row))?;
        }
    }
    Ok(())
}

/// The key of the object that stands for bytes that are not UTF-8 text.
const NOT_TEXT: &str = "$bytes-not-utf8";

/// A Parquet row as JSON, text kept as text: a plain `BYTE_ARRAY` column without the UTF-8
/// annotation (as some writers store strings) is read as the text it holds, never as base64.
/// Bytes that are not UTF-8 become `{"$bytes-not-utf8": length}`, which no column reads as a
/// value, so a row that needs one is skipped saying so.
fn row_json(row: &parquet::record::Row) -> Value {
    Value::Object(
        row.get_column_iter()
            .map(|(k, f)| (k.clone(), field_json(f)))
            .collect(),
    )
}

fn field_json(f: &parquet::record::Field) -> Value {
    use parquet::record::Field;
    match f {
        Field::Bytes(b) => match std::str::from_utf8(b.data()) {
            Ok(s) => Value::String(s.to_string()),
            Err(_) => serde_json::json!({ NOT_TEXT: b.data().len() }),
        },
        Field::Group(row) => row_json(row),
        Field::ListInternal(list) => Value::Array(list.elements().iter().map(field_json).collect()),
        Field::MapInternal(map) => Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| {
                    let key = match field_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, field_json(v))
                })
                .collect(),
        ),
        other => other.to_json_value(),
    }
}

/// Why a value is not what a column should hold: bytes that are not text say so.
fn not_text(v: &Value) -> Option<String> {
    let n = v.get(NOT_TEXT)?;
    Some(format!("holds {n} bytes that are not UTF-8 text"))
}

/// The value at a dotted path (`reward_model.ground_truth`); a column whose own name has a
/// dot is found first.
pub(crate) fn at<'a>(row: &'a Value, path: &str) -> Option<&'a Value> {
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
    explicit: &std::collections::HashSet<String>,
) -> std::result::Result<(Option<QaTask>, Vec<PoolLine>), String> {
    let c = &spec.columns;
    let missing = |col: &str| format!("no column `{col}` (the `columns:` mapping names where each part is)");
    let answer_v = at(row, &c.answer).ok_or_else(|| missing(&c.answer))?;
    let answer = scalar(answer_v).ok_or_else(|| {
        let why = not_text(answer_v).unwrap_or_else(|| "is not a string or a number".into());
        format!("column `{}` {why}", c.answer)
    })?;
    let completions_v = at(row, &c.completion).ok_or_else(|| missing(&c.completion))?;
    let completions = responses(completions_v).ok_or_else(|| {
        let why = not_text(completions_v).unwrap_or_else(|| "is not a string or a list of strings".into());
        format!("column `{}` {why}", c.completion)
    })?;
    // A row without an id is named by its number, unless another row's id is that number.
    let id = at(row, &c.id).and_then(scalar).unwrap_or_else(|| {
        let mut id = number.to_string();
        let mut k = 0;
        while explicit.contains(&id) {
            k += 1;
            id = if k == 1 {
                format!("row{number}")
            } else {
                format!("row{number}-{k}")
            };
        }
        id
    });
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
pub(crate) fn materialise(spec: &DatasetSpec, dir: &Path) -> Result<Materialised> {
    let stem = spec
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into());
    // Two passes over the file, one row in memory at a time: the explicit ids first (a row
    // without one must not take one of them), then the rows themselves.
    let mut explicit = std::collections::HashSet::new();
    for_each_row(&spec.file, &mut |(_, row)| {
        if let Some(id) = row.ok().and_then(|r| at(&r, &spec.columns.id).and_then(scalar)) {
            explicit.insert(id);
        }
        Ok(())
    })?;
    std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    let pool = dir.join("pool.jsonl");
    let tasks = (spec.mode == DatasetMode::Answer).then(|| dir.join("tasks.jsonl"));
    let create = |path: &Path| -> Result<std::io::BufWriter<std::fs::File>> {
        let f = std::fs::File::create(path).map_err(|e| CoreError::io(path, e))?;
        Ok(std::io::BufWriter::with_capacity(1 << 20, f))
    };
    let mut pool_out = create(&pool)?;
    let mut task_out = tasks.as_deref().map(create).transpose()?;
    let mut skipped = Vec::new();
    let mut candidates = 0;
    let mut seen = std::collections::HashSet::new();
    let mut number = 0;
    for_each_row(&spec.file, &mut |(place_in_file, row)| {
        number += 1;
        let place = format!("{}:{place_in_file}", spec.file.display());
        let items = row.and_then(|r| row_items(spec, &stem, number, &r, &explicit));
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
                        return Ok(());
                    }
                    if let (Some(out), Some(path)) = (task_out.as_mut(), tasks.as_deref()) {
                        write_line(out, path, &t)?;
                    }
                }
                for l in lines {
                    write_line(&mut pool_out, &pool, &l)?;
                    candidates += 1;
                }
            }
            Err(message) => skipped.push(SkippedLine { place, message }),
        }
        Ok(())
    })?;
    pool_out.flush().map_err(|e| CoreError::io(&pool, e))?;
    if let (Some(mut out), Some(path)) = (task_out, tasks.as_deref()) {
        out.flush().map_err(|e| CoreError::io(path, e))?;
    }
    Ok(Materialised {
        pool,
        tasks,
        candidates,
        skipped,
    })
}

/// Writes `value` as one JSON line of `path` (a task or a pool line).
fn write_line<T: serde::Serialize>(
    out: &mut std::io::BufWriter<std::fs::File>,
    path: &Path,
    value: &T,
) -> Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(|e| CoreError::io(path, std::io::Error::other(e)))?;
    out.write_all(b"\n").map_err(|e| CoreError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The pool a dataset was written to, line by line.
    fn pool_lines(pool: &Path) -> Vec<PoolLine> {
        std::fs::read_to_string(pool)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

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
        let pool = pool_lines(&m.pool);
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

    #[test]
    fn a_row_without_an_id_never_takes_another_rows_id() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("mix.jsonl");
        let rows = [
            json!({"reward_model": {"ground_truth": "1"}, "extra_info": {"index": 2}, "response": "1"}),
            json!({"reward_model": {"ground_truth": "2"}, "response": "2"}),
            json!({"reward_model": {"ground_truth": "3"}, "extra_info": {"index": "row3"}, "response": "3"}),
            json!({"reward_model": {"ground_truth": "4"}, "response": "4"}),
        ];
        std::fs::write(&file, rows.iter().map(|r| format!("{r}\n")).collect::<String>()).unwrap();
        let m = materialise(&spec(&file), &d.path().join("out")).unwrap();
        assert!(m.skipped.is_empty(), "{:?}", m.skipped);
        let pool = pool_lines(&m.pool);
        let ids: Vec<_> = pool.iter().map(|p| p.id.clone().unwrap()).collect();
        assert_eq!(ids, ["mix#2", "mix#row2", "mix#row3", "mix#4"]);
    }

    #[test]
    fn parquet_text_without_the_utf8_annotation_is_text_and_bytes_are_named() {
        use parquet::data_type::{ByteArray, ByteArrayType};
        use parquet::file::properties::WriterProperties;
        use parquet::file::writer::SerializedFileWriter;
        use std::sync::Arc;
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("plain.parquet");
        let schema = parquet::schema::parser::parse_message_type(
            "message s { required binary answer; required binary response; }",
        )
        .unwrap();
        let out = std::fs::File::create(&file).unwrap();
        let props = Arc::new(WriterProperties::builder().build());
        let mut w = SerializedFileWriter::new(out, Arc::new(schema), props).unwrap();
        // Two row groups, read one after the other.
        let groups: [[Vec<&[u8]>; 2]; 2] = [
            [
                vec![b"42", b"\xff\xfe"],
                vec![b"The answer is \\boxed{42}.", b"7"],
            ],
            [vec![b"5"], vec![b"so \\boxed{5}"]],
        ];
        for columns in groups {
            let mut rg = w.next_row_group().unwrap();
            for values in columns {
                let mut c = rg.next_column().unwrap().unwrap();
                let values: Vec<ByteArray> = values.into_iter().map(ByteArray::from).collect();
                c.typed::<ByteArrayType>()
                    .write_batch(&values, None, None)
                    .unwrap();
                c.close().unwrap();
            }
            rg.close().unwrap();
        }
        w.close().unwrap();
        let s = DatasetSpec {
            file: file.clone(),
            mode: DatasetMode::Answer,
            columns: Columns {
                answer: "answer".into(),
                ..Columns::default()
            },
        };
        let m = materialise(&s, &d.path().join("out")).unwrap();
        let tasks: Vec<QaTask> = std::fs::read_to_string(m.tasks.unwrap())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].answer, "42", "text, not base64");
        assert_eq!((tasks[1].id.as_str(), tasks[1].answer.as_str()), ("plain#3", "5"));
        let pool = std::fs::read_to_string(&m.pool).unwrap();
        assert!(pool.contains("The answer is"), "{pool}");
        assert_eq!(m.skipped.len(), 1);
        assert!(
            m.skipped[0]
                .message
                .contains("column `answer` holds 2 bytes that are not UTF-8 text"),
            "{}",
            m.skipped[0]
        );
    }

    #[test]
    fn jsonl_rows_are_read_one_at_a_time_and_a_row_past_the_bound_is_skipped_saying_so() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("rows.jsonl");
        let long = format!("{{\"x\": \"{}\"}}", "y".repeat(500));
        std::fs::write(&file, format!("{{\"a\": 1}}\n{long}\n\n{{\"a\": 2}}")).unwrap();
        let mut got = Vec::new();
        rows_bounded(&file, 100, &mut |(place, row)| {
            got.push((place, row.map(|r| r["a"].clone())));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            got,
            vec![
                ("1".to_string(), Ok(json!(1))),
                (
                    "2".to_string(),
                    Err("the row is longer than 100 bytes".to_string())
                ),
                ("4".to_string(), Ok(json!(2))),
            ]
        );
    }

    #[test]
    fn a_dataset_that_is_not_a_regular_file_is_refused_by_name() {
        let e = read_rows(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.contains("/dev/zero") && e.contains("character device"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("rows.parquet");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let e = read_rows(&fifo).unwrap_err().to_string();
        assert!(e.contains("rows.parquet") && e.contains("FIFO"), "{e}");
    }
}
