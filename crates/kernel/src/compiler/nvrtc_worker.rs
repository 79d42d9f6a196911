//! The NVRTC compile worker: a long-lived process that loads the runtime compiler once and
//! compiles one source per request, so a compile costs NVRTC's own time and not a compiler
//! process's start (nvcc drives several programs per source). The worker runs a candidate's
//! source through a compiler, so it runs only as a process of its own, under the compile
//! sandbox and limits ([`super::nvrtc`] starts it), never inside the service or the harness.
//!
//! The protocol is one JSON line each way on standard input and output. At start the worker
//! loads `libnvrtc` (from the library path the parent sets) and writes
//! `{"ready": true, "version": "13.0"}`, or `{"ready": false, "error": …}` and exits. Then, per
//! request `{"source": TEXT, "options": [..]}` it compiles `TEXT` as `kernel.cu` and answers
//! `{"ok": true, "seconds": S, "log": …, "object_bytes": N}` followed by the code object's `N`
//! bytes, or `{"ok": false, "log": …}`. The worker writes no file: in its jail it has none to
//! write to, and the code object comes back on the pipe.

use serde::{Deserialize, Serialize};
use std::ffi::{CStr, CString, c_char, c_int};
use std::io::{BufRead, Write};

/// One compile request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Request {
    /// The source text.
    pub source: String,
    /// NVRTC's options.
    pub options: Vec<String>,
}

/// One compile's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// The code object was written.
    pub ok: bool,
    /// NVRTC's log (diagnostics).
    #[serde(default)]
    pub log: String,
    /// Seconds NVRTC took.
    #[serde(default)]
    pub seconds: f64,
    /// The code object's size: that many bytes follow the answer's line.
    #[serde(default)]
    pub object_bytes: u64,
}

/// The worker's first line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Hello {
    /// The library loaded.
    pub ready: bool,
    /// NVRTC's version, `major.minor`.
    #[serde(default)]
    pub version: String,
    /// Why not, when not ready.
    #[serde(default)]
    pub error: String,
}

/// The program name NVRTC reports diagnostics against.
pub(crate) const SOURCE_NAME: &str = "kernel.cu";

fn nvrtc_version() -> Result<String, String> {
    use cudarc::nvrtc::sys;
    // SAFETY: probing for the library has no side effect besides loading it.
    if !unsafe { sys::is_culib_present() } {
        return Err("libnvrtc was not found on the library path".into());
    }
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: writes two ints.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcVersion: {r:?}"));
    }
    Ok(format!("{major}.{minor}"))
}

/// Compiles one request: the code object's bytes, or `None` with the log.
fn compile(req: &Request) -> (Option<Vec<u8>>, String, f64) {
    use cudarc::nvrtc::sys;
    let start = std::time::Instant::now();
    let Ok(src) = CString::new(req.source.as_str()) else {
        return (None, "the source holds a NUL byte".into(), 0.0);
    };
    let name = CString::new(SOURCE_NAME).expect("no NUL");
    let options: Vec<CString> = req
        .options
        .iter()
        .filter_map(|o| CString::new(o.as_str()).ok())
        .collect();
    let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: `src` and `name` outlive the call; no headers are passed.
    let r = unsafe {
        sys::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return (None, format!("nvrtcCreateProgram: {r:?}"), 0.0);
    }
    // SAFETY: `prog` was created above; `ptrs` point into `options`, alive for the call.
    let compiled = unsafe { sys::nvrtcCompileProgram(prog, ptrs.len() as c_int, ptrs.as_ptr()) };
    let log = program_log(prog);
    let mut object = None;
    if compiled == sys::nvrtcResult::NVRTC_SUCCESS {
        let mut size = 0usize;
        // SAFETY: `prog` compiled; writes one size.
        if unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) } == sys::nvrtcResult::NVRTC_SUCCESS && size > 0 {
            let mut buf = vec![0u8; size];
            // SAFETY: `buf` holds `size` bytes, as NVRTC asked.
            if unsafe { sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast()) } == sys::nvrtcResult::NVRTC_SUCCESS
            {
                object = Some(buf);
            }
        }
    }
    // SAFETY: `prog` is destroyed once.
    unsafe { sys::nvrtcDestroyProgram(&mut prog) };
    let log = if object.is_none() && log.trim().is_empty() {
        format!("nvrtcCompileProgram: {compiled:?}")
    } else {
        log
    };
    (object, log, start.elapsed().as_secs_f64())
}

fn program_log(prog: cudarc::nvrtc::sys::nvrtcProgram) -> String {
    use cudarc::nvrtc::sys;
    let mut size = 0usize;
    // SAFETY: writes one size.
    if unsafe { sys::nvrtcGetProgramLogSize(prog, &mut size) } != sys::nvrtcResult::NVRTC_SUCCESS || size == 0
    {
        return String::new();
    }
    let mut buf = vec![0 as c_char; size];
    // SAFETY: `buf` holds `size` chars, as NVRTC asked.
    if unsafe { sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr()) } != sys::nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    // SAFETY: NVRTC writes a NUL-terminated string of at most `size` bytes.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn line<T: Serialize>(out: &mut impl Write, v: &T) -> std::io::Result<()> {
    let mut text = serde_json::to_vec(v).map_err(std::io::Error::other)?;
    text.push(b'\n');
    out.write_all(&text)?;
    out.flush()
}

/// The worker's loop (`aorlta nvrtc-worker`): answers requests on standard input until it
/// closes. Returns the process's exit code.
pub fn serve() -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let version = match nvrtc_version() {
        Ok(v) => v,
        Err(error) => {
            let _ = line(
                &mut out,
                &Hello {
                    ready: false,
                    version: String::new(),
                    error,
                },
            );
            return 2;
        }
    };
    let hello = Hello {
        ready: true,
        version,
        error: String::new(),
    };
    if line(&mut out, &hello).is_err() {
        return 1;
    }
    for text in std::io::stdin().lock().lines() {
        let Ok(text) = text else { return 1 };
        let answer = match serde_json::from_str::<Request>(&text) {
            Err(e) => Answer {
                ok: false,
                log: format!("a malformed request: {e}"),
                seconds: 0.0,
                object_bytes: 0,
            },
            Ok(req) => {
                let (object, log, seconds) = compile(&req);
                let answer = Answer {
                    ok: object.is_some(),
                    log,
                    seconds,
                    object_bytes: object.as_ref().map_or(0, |o| o.len() as u64),
                };
                if line(&mut out, &answer).is_err() {
                    return 1;
                }
                if let Some(o) = object
                    && (out.write_all(&o).is_err() || out.flush().is_err())
                {
                    return 1;
                }
                continue;
            }
        };
        if line(&mut out, &answer).is_err() {
            return 1;
        }
    }
    0
}
