//! The generator without Python: the modules of a seed are stable (a snapshot of the first ids
//! and a few texts, over the repository's configuration), independent of the count, reach every
//! family, and a malformed configuration is an error naming the file and the line.

use super::config::{Family, GeneratorConfig};
use super::{generate_one, task_id};
use std::path::{Path, PathBuf};

fn repo_config() -> (GeneratorConfig, PathBuf) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/generated/generator.yaml");
    (GeneratorConfig::load(&path).unwrap(), path)
}

#[test]
fn the_modules_of_a_seed_are_stable() {
    let (config, _) = repo_config();
    let ids: Vec<String> = (0..40)
        .map(|i| {
            let m = generate_one(&config, 1, i);
            format!("{} [{}, {}]", task_id(1, i, &m), m.dtype.name(), m.shape)
        })
        .collect();
    insta::assert_snapshot!("seed_1_ids", ids.join("\n"));
    for i in [0u64, 8, 16] {
        insta::assert_snapshot!(format!("seed_1_module_{i}"), generate_one(&config, 1, i).text);
    }
}

#[test]
fn a_module_depends_on_its_seed_and_index_only() {
    let (config, _) = repo_config();
    assert_eq!(generate_one(&config, 7, 12), generate_one(&config, 7, 12));
    assert_ne!(
        generate_one(&config, 7, 12).text,
        generate_one(&config, 8, 12).text
    );
    let texts: std::collections::BTreeSet<String> =
        (0..50).map(|i| generate_one(&config, 7, i).text).collect();
    assert!(texts.len() > 45, "{} distinct of 50", texts.len());
}

#[test]
fn every_family_and_element_type_is_reached_and_a_loss_ends_its_module() {
    let (config, _) = repo_config();
    let mut families = std::collections::BTreeSet::new();
    let mut dtypes = std::collections::BTreeSet::new();
    for i in 0..400 {
        let m = generate_one(&config, 3, i);
        assert!((1..=5).contains(&m.ops.len()), "{:?}", m.ops);
        if let Some(p) = m.families.iter().position(|f| *f == Family::Loss) {
            assert_eq!(p, m.families.len() - 1, "{:?}", m.ops);
        }
        families.extend(m.families);
        dtypes.insert(m.dtype);
    }
    assert_eq!(families.len(), Family::ALL.len(), "{families:?}");
    assert_eq!(dtypes.len(), 3, "{dtypes:?}");
}

fn error_of(text: &str) -> String {
    GeneratorConfig::parse(text, Path::new("gen.yaml"))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_malformed_number_is_an_error_naming_the_file_and_line() {
    let (_, path) = repo_config();
    let good = std::fs::read_to_string(path).unwrap();
    let line_of = |needle: &str| good.lines().position(|l| l.contains(needle)).unwrap() + 1;

    let bad = good.replace("norm:        {weight: 1.5", "norm:        {weight: -1.5");
    let e = error_of(&bad);
    let line = line_of("norm:        {weight:");
    assert!(e.contains(&format!("gen.yaml:{line}:")), "{e}");
    assert!(e.contains("a weight is a finite number"), "{e}");

    let bad = good.replace("rows: [128, 256, 512]", "rows: [128, 0, 512]");
    let e = error_of(&bad);
    let line = line_of("rows: [128, 256, 512]");
    assert!(
        e.contains(&format!("gen.yaml:{line}:")) && e.contains("at least 1"),
        "{e}"
    );

    let bad = good.replace("max-ops: 5", "max-ops: 6");
    let e = error_of(&bad);
    assert!(
        e.contains(&format!("gen.yaml:{}:", line_of("max-ops: 5"))) && e.contains("max-ops"),
        "{e}"
    );

    let bad = good.replace("  scan:        {weight", "  scans:       {weight");
    let e = error_of(&bad);
    assert!(
        e.contains(&format!("gen.yaml:{}:", line_of("  scan:        {weight"))),
        "{e}"
    );
}
