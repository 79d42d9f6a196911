//! A launch job (`Work::Launch`): the candidate alone, launched once on one size, for a profiler
//! that wraps the harness process (`kernel-profile` runs `ncu … aorlta-harness run --job …`).
//! The candidate's module is loaded, a buffer set is filled with inputs of the typical law, the
//! harness's device code is unloaded, and the candidate is launched once between the usual
//! events (so a hang is a hang); no reference runs, nothing is timed or verified (the
//! `kernel-run` leg did that), and the set is scrubbed before it is freed. The only kernel the
//! profiler sees under the task's name is the candidate's.

use crate::backend::Backend;
use crate::layout::{Draw, Layout};
use crate::plan::{Runner, Stop};
use aorlta_record::{LaunchReport, LaunchWork, Party};

/// Runs a launch job; findings go to the runner.
pub(crate) fn run<B: Backend>(r: &mut Runner<'_, B>, w: &LaunchWork) -> Option<LaunchReport> {
    run_inner(r, w).ok()
}

fn run_inner<B: Backend>(r: &mut Runner<'_, B>, w: &LaunchWork) -> Result<LaunchReport, Stop> {
    let job = r.job;
    crate::steps::one_kernel(r, "a launch job")?;
    let layout = Layout::new(&job.task, w.size).map_err(|m| {
        r.finding(Party::Harness, "bad-task", m);
        Stop
    })?;
    let candidate = r.probe(&job.candidate, Party::Candidate)?;
    let geometry = r.geometry(&candidate, &layout)?;
    let inst = r.instantiate(&candidate, &geometry)?;
    let set = r.alloc_set(&layout)?;
    let result = (|| -> Result<(), Stop> {
        if !r.helpers_loaded {
            r.helpers_on()?;
        }
        r.fill_set(&layout, &set, Draw::Typical(w.seed), false)?;
        r.helpers_off()?;
        let args = r.args(Party::Candidate, &layout, &set)?;
        r.timed_launch(Party::Candidate, inst.func, &geometry, &args)?;
        Ok(())
    })();
    if !r.context_lost {
        r.scrub_and_free(&layout, &set);
        r.release(inst)?;
    }
    result?;
    Ok(LaunchReport {
        size: w.size,
        geometry,
    })
}
