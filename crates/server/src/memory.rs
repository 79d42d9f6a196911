//! Gives freed heap back to the operating system while the service runs.
//!
//! The service's live heap is bounded (the memory cache, the compile cache and the seed-draw
//! counters turn over in generations), but glibc's allocator keeps the pages of freed memory in
//! each thread's arena; as generations are dropped on different worker threads, the resident set
//! creeps up although the heap does not (24 minutes of the soak under heaptrack: from minute 12
//! on, the live heap's low point in each 2-minute window stayed at 58 to 67 MiB and its high
//! point at 77 to 83 MiB while the resident set kept rising). A periodic `malloc_trim` releases
//! free pages from every arena; it slows that growth but does not stop it. Capping the arenas
//! at two ([`limit_arenas`], called at start) lowers the resident set by about a quarter, but
//! a slow rise remains (docs/OPERATIONS.md, "Soak").

use std::time::Duration;

/// How often freed memory is handed back.
pub(crate) const TRIM_EVERY: Duration = Duration::from_secs(30);

/// Hands free heap pages back to the OS; returns whether any were released. A no-op where the
/// allocator is not glibc's.
pub(crate) fn trim() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // libc: malloc_trim is glibc's allocator, not a system call rustix could offer.
        // SAFETY: malloc_trim takes no pointers and only walks the allocator's own arenas under
        // their locks; it is safe to call from any thread at any time.
        unsafe { libc::malloc_trim(0) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// The most heap arenas the service lets glibc keep (its default is 8 per core). Each arena
/// holds on to the pages freed in it; with many, memory freed on one worker thread sits unused
/// while another thread's arena grows. Two arenas bring the soak's resident set down (85 MiB
/// against 113 MiB at 10 minutes), not its slow rise (docs/OPERATIONS.md, "Soak"); they cost
/// some Q&A throughput under contention (`aorlta
/// bench serve` at batch 256 on 2 cores: about 70,000–73,000 items/s against 84,000–87,000 with
/// 16), far above the service's goal. An operator who wants the other trade sets
/// `MALLOC_ARENA_MAX`.
pub(crate) const ARENAS: i32 = 2;

/// Caps glibc's heap arenas at two, unless `MALLOC_ARENA_MAX` is set (the operator's
/// choice stands). Call before the service starts its threads. Returns whether the cap is now
/// set; `false` where the allocator is not glibc's or the variable is set.
pub fn limit_arenas() -> bool {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return false;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // libc: mallopt is glibc's allocator, not a system call rustix could offer.
        // SAFETY: mallopt takes no pointers; it sets one allocator parameter under its lock.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, ARENAS) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Trims every [`TRIM_EVERY`] until dropped (the task is aborted with its handle).
pub(crate) fn spawn_trimmer() -> tokio::task::JoinHandle<()> {
    tokio::spawn(async {
        let mut every = tokio::time::interval(TRIM_EVERY);
        every.tick().await;
        loop {
            every.tick().await;
            // It walks every arena: off the async workers.
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn the_arena_cap_is_taken_unless_the_operator_set_one() {
        assert_eq!(limit_arenas(), std::env::var_os("MALLOC_ARENA_MAX").is_none());
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn trimming_after_freeing_a_large_scattered_heap_releases_pages() {
        // Many small blocks on another thread's arena, then all but every 64th freed: the free
        // memory sits between live blocks, which only a trim gives back.
        let kept = std::thread::spawn(|| {
            let blocks: Vec<Vec<u8>> = (0..200_000).map(|i| vec![i as u8; 512]).collect();
            blocks.into_iter().step_by(64).collect::<Vec<_>>()
        })
        .join()
        .unwrap();
        assert!(trim(), "nothing was released although ~100 MiB was freed");
        assert_eq!(kept.len(), 3125);
    }
}
