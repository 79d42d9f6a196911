//! Shared fixtures: a small vector-add task, fake code objects and jobs.

use aorlta_gpu::FakeBackend;
use aorlta_gpu::run_job;
use aorlta_record::KernelTask;
use aorlta_record::{
    CheckWork, HARNESS_FORMAT, HarnessJob, HarnessRecord, JobReference, KernelImage, TimeWork, Work,
};
use aorlta_record::{FAKE_MAGIC, FakeBehaviour, FakeImage};
use std::path::Path;

pub(crate) const MANGLED: &str = "_Z10vector_addPKfS0_Pfi";

pub(crate) fn task() -> KernelTask {
    serde_json::from_value(serde_json::json!({
        "id": "vector_add",
        "prompt": "add",
        "signature": "void vector_add(const float* a, const float* b, float* c, int n)",
        "reference": "reference/vector_add.cu",
        "buffers": [
            {"name": "a", "dtype": "f32", "len": "n", "role": "in"},
            {"name": "b", "dtype": "f32", "len": "n", "role": "in"},
            {"name": "c", "dtype": "f32", "len": "n", "role": "out"}
        ],
        "scalars": {"n": "n"},
        "sizes": [{"n": 4096}, {"n": 1001}, {"n": 33}],
        "grid": ["ceil_div(n, 256)", "1", "1"],
        "block": ["256", "1", "1"]
    }))
    .expect("a valid task")
}

/// A fake image; the reference is found by its mangled name, candidates by the plain one.
pub(crate) fn image(behaviour: FakeBehaviour, speed: f64, reference: bool) -> FakeImage {
    FakeImage {
        magic: FAKE_MAGIC.into(),
        compute: "vector_add".into(),
        symbols: vec![if reference { MANGLED } else { "vector_add" }.to_string()],
        behaviour,
        speed,
        fixed_s: None,
        noise: 0.01,
        launch: None,
        kernels: Default::default(),
    }
}

pub(crate) fn write_image(dir: &Path, name: &str, img: &FakeImage) -> KernelImage {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(img).unwrap()).unwrap();
    KernelImage {
        path,
        symbols: vec![MANGLED.to_string(), "vector_add".to_string()],
        launch: None,
        plan: None,
    }
}

pub(crate) fn job(dir: &Path, cand: &FakeImage, work: Work) -> HarnessJob {
    HarnessJob {
        format: HARNESS_FORMAT,
        id: "t".into(),
        task: task(),
        reference: JobReference::Kernel(write_image(
            dir,
            "ref.cubin",
            &image(FakeBehaviour::Correct, 1.0, true),
        )),
        candidate: write_image(dir, "cand.cubin", cand),
        record: dir.join("t.record.json"),
        launch_timeout_s: 0.2,
        work,
    }
}

pub(crate) fn check_work() -> Work {
    Work::Check(CheckWork {
        sizes: vec![0, 1, 2],
        seeds: vec![11, 12],
    })
}

pub(crate) fn time_work(pairs: usize) -> Work {
    Work::Time(TimeWork {
        size: 0,
        pairs,
        min_pairs: 10.min(pairs),
        budget_s: 5.0,
        order_seed: 99,
        input_seed: 7,
        keep_launches: false,
        looks: Vec::new(),
        judge: serde_json::Value::Null,
        symmetric: false,
    })
}

pub(crate) fn run(cand: &FakeImage, work: Work) -> (HarnessRecord, FakeBackend) {
    let dir = tempfile::tempdir().unwrap();
    let j = job(dir.path(), cand, work);
    let mut b = FakeBackend::new(0);
    let rec = run_job(&mut b, &j);
    (rec, b)
}

pub(crate) fn codes(rec: &HarnessRecord) -> Vec<String> {
    rec.findings
        .iter()
        .map(|f| format!("{:?}:{}", f.party, f.code).to_lowercase())
        .collect()
}
