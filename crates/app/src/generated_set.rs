//! The training set of a generated run: `tasks.jsonl` (one line per kept task: its id, split,
//! difficulty, families, operators, element type, shape class, bytes and operations) and one
//! Parquet file per split in verl's layout: `data_source`, `prompt` (chat messages: one user
//! message, the task's prompt), `ability`, `reward_model {style, ground_truth}` (the task id,
//! which verl's drop-in reads as an id) and `extra_info {split, index, aorlta_task, difficulty,
//! families}` (`aorlta_task` wins over `ground_truth` in the drop-in).

use aorlta_kernel::generate::{GenerateReport, GeneratedRow};
use aorlta_record::KernelTask;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use std::path::Path;
use std::sync::Arc;

/// The data source every row names.
const DATA_SOURCE: &str = "aorlta-generated";

/// The verl layout's schema.
const SCHEMA: &str = "message verl {
  required binary data_source (UTF8);
  required group prompt (LIST) {
    repeated group list {
      required group element {
        required binary role (UTF8);
        required binary content (UTF8);
      }
    }
  }
  required binary ability (UTF8);
  required group reward_model {
    required binary style (UTF8);
    required binary ground_truth (UTF8);
  }
  required group extra_info {
    required binary split (UTF8);
    required int64 index;
    required binary aorlta_task (UTF8);
    required binary difficulty (UTF8);
    required binary families (UTF8);
  }
}";

fn families(r: &GeneratedRow) -> Vec<&'static str> {
    let mut f: Vec<&str> = r.module.families.iter().map(|f| f.name()).collect();
    f.sort();
    f.dedup();
    f
}

/// Writes `tasks.jsonl`: one line per kept task.
fn write_manifest(report: &GenerateReport, path: &Path) -> std::io::Result<()> {
    let mut s = String::new();
    for r in report.kept() {
        let line = serde_json::json!({
            "id": r.id,
            "split": r.split,
            "difficulty": r.difficulty,
            "families": families(r),
            "ops": r.module.ops,
            "dtype": r.module.dtype.name(),
            "shape": r.module.shape,
            "bytes": r.bytes,
            "flops": r.flops,
        });
        s.push_str(&line.to_string());
        s.push('\n');
    }
    std::fs::write(path, s)
}

/// Writes the kept tasks of `split` as a Parquet file in verl's layout, one row group.
fn write_parquet(report: &GenerateReport, split: &str, path: &Path) -> std::io::Result<()> {
    let bad = |e: parquet::errors::ParquetError| std::io::Error::other(format!("{}: {e}", path.display()));
    let mut rows: Vec<(&GeneratedRow, String)> = Vec::new();
    for r in report.kept().filter(|r| r.split == split) {
        let Ok(file) = &r.outcome else { continue };
        let text = std::fs::read_to_string(file)?;
        let task: KernelTask = serde_norway::from_str(&text)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", file.display())))?;
        rows.push((r, task.prompt));
    }
    let schema = parquet::schema::parser::parse_message_type(SCHEMA).map_err(bad)?;
    let props = Arc::new(WriterProperties::builder().build());
    let mut w =
        SerializedFileWriter::new(std::fs::File::create(path)?, Arc::new(schema), props).map_err(bad)?;
    let mut rg = w.next_row_group().map_err(bad)?;
    let text = |f: &dyn Fn(usize, &GeneratedRow, &str) -> String| -> Vec<ByteArray> {
        rows.iter()
            .enumerate()
            .map(|(i, (r, p))| ByteArray::from(f(i, r, p).as_str()))
            .collect()
    };
    let columns: Vec<Vec<ByteArray>> = vec![
        text(&|_, _, _| DATA_SOURCE.into()),
        text(&|_, _, _| "user".into()),
        text(&|_, _, p| p.to_string()),
        text(&|_, _, _| "kernel".into()),
        text(&|_, _, _| "rule".into()),
        text(&|_, r, _| r.id.clone()),
        text(&|_, r, _| r.split.into()),
    ];
    let n = rows.len();
    // The leaves in the schema's order: data_source, prompt.role, prompt.content, ability,
    // reward_model.style, reward_model.ground_truth, extra_info.split, extra_info.index,
    // extra_info.aorlta_task, extra_info.difficulty, extra_info.families.
    let tail: Vec<Vec<ByteArray>> = vec![
        text(&|_, r, _| r.id.clone()),
        text(&|_, r, _| r.difficulty.into()),
        text(&|_, r, _| families(r).join(",")),
    ];
    let (ones, zeros) = (vec![1i16; n], vec![0i16; n]);
    let mut leaf = 0;
    while let Some(mut c) = rg.next_column().map_err(bad)? {
        match leaf {
            7 => {
                let idx: Vec<i64> = (0..n as i64).collect();
                c.typed::<Int64Type>()
                    .write_batch(&idx, None, None)
                    .map_err(bad)?;
            }
            1 | 2 => {
                c.typed::<ByteArrayType>()
                    .write_batch(&columns[leaf], Some(&ones), Some(&zeros))
                    .map_err(bad)?;
            }
            0..=6 => {
                c.typed::<ByteArrayType>()
                    .write_batch(&columns[leaf], None, None)
                    .map_err(bad)?;
            }
            _ => {
                c.typed::<ByteArrayType>()
                    .write_batch(&tail[leaf - 8], None, None)
                    .map_err(bad)?;
            }
        }
        c.close().map_err(bad)?;
        leaf += 1;
    }
    rg.close().map_err(bad)?;
    w.close().map_err(bad)?;
    Ok(())
}

/// Writes a generated run's training set beside its tasks: `tasks.jsonl` and one Parquet file per
/// split (`train.parquet`, `held-out.parquet`) in verl's layout.
pub fn write_generated_set(report: &GenerateReport, out: &Path) -> std::io::Result<()> {
    write_manifest(report, &out.join("tasks.jsonl"))?;
    for split in ["train", "held-out"] {
        write_parquet(report, split, &out.join(format!("{split}.parquet")))?;
    }
    Ok(())
}
