//! The CUDA backend's vendor-library steps of a plan: cuBLAS, opened at run time (cudarc's
//! dynamically loaded bindings; [`present`] is checked first, as a missing library would panic).
//!
//! One handle per harness process, created on the first library step and kept, on the legacy
//! default stream the harness times, with a workspace of the harness's own (cuBLAS writes it
//! before it reads it, so nothing a candidate's kernel leaves there reaches a result). The GEMM
//! computes in f32 (`CUBLAS_COMPUTE_32F`: no TF32, as the PyTorch references run with TF32 off)
//! whatever the matrices' type.
//!
//! A step's matrices are row-major and packed; cuBLAS is column-major. A row-major `m` x `n`
//! matrix is the column-major `n` x `m` of its transpose, so `c = op(a) op(b)` is computed as
//! `c^T = op(b)^T op(a)^T` with the operands swapped.

use crate::backend::{BackendError, DevPtr, ErrorKind, LibraryOp};
use aorlta_record::Dtype;
use cudarc::cublas::sys;
use std::ffi::c_void;

/// Bytes of the workspace (cuBLAS asks for at most 32 MiB on Hopper).
const WORKSPACE_BYTES: usize = 32 << 20;

/// True when libcublas can be opened.
pub(crate) fn present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { sys::is_culib_present() }
}

/// A cuBLAS handle and its workspace.
pub(crate) struct Cublas {
    handle: sys::cublasHandle_t,
    _workspace: DevPtr,
}

fn status(call: &'static str, s: sys::cublasStatus_t) -> Result<(), BackendError> {
    if s == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Ok(());
    }
    let kind = match s {
        sys::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED => ErrorKind::OutOfMemory,
        sys::cublasStatus_t::CUBLAS_STATUS_EXECUTION_FAILED => ErrorKind::Fault,
        _ => ErrorKind::Driver,
    };
    Err(BackendError {
        kind,
        call,
        detail: format!("{s:?}"),
    })
}

impl Cublas {
    /// A handle on the current context, on the legacy default stream, with `workspace` (a
    /// device allocation of [`WORKSPACE_BYTES`] the caller made and keeps).
    pub(crate) fn new(
        alloc: &mut dyn FnMut(usize) -> Result<DevPtr, BackendError>,
    ) -> Result<Cublas, BackendError> {
        if !present() {
            return Err(BackendError {
                kind: ErrorKind::Driver,
                call: "cublasCreate",
                detail: "libcublas cannot be opened (is the CUDA toolkit's lib64 on the loader's path?)"
                    .into(),
            });
        }
        let mut handle: sys::cublasHandle_t = std::ptr::null_mut();
        // SAFETY: writes one handle; the context is current.
        status("cublasCreate", unsafe { sys::cublasCreate_v2(&mut handle) })?;
        let workspace = alloc(WORKSPACE_BYTES)?;
        // SAFETY: `handle` is live; the null stream is the legacy default stream; the workspace
        // is an allocation of WORKSPACE_BYTES that outlives the handle (the process's).
        unsafe {
            status(
                "cublasSetStream",
                sys::cublasSetStream_v2(handle, std::ptr::null_mut()),
            )?;
            status(
                "cublasSetWorkspace",
                sys::cublasSetWorkspace_v2(handle, workspace as *mut c_void, WORKSPACE_BYTES),
            )?;
            status(
                "cublasSetMathMode",
                sys::cublasSetMathMode(handle, sys::cublasMath_t::CUBLAS_DEFAULT_MATH),
            )?;
        }
        Ok(Cublas {
            handle,
            _workspace: workspace,
        })
    }

    /// Queues `op` on the stream.
    ///
    /// # Safety
    /// Every matrix `op` names lies inside one live allocation.
    pub(crate) unsafe fn run(&mut self, op: &LibraryOp) -> Result<(), BackendError> {
        let LibraryOp::Gemm {
            a,
            b,
            c,
            m,
            n,
            k,
            trans_a,
            trans_b,
            alpha,
            beta,
            dtype,
        } = *op;
        let dim = |v: u64| {
            i32::try_from(v).map_err(|_| BackendError {
                kind: ErrorKind::Driver,
                call: "cublasGemmEx",
                detail: format!("a dimension of {v} is over cuBLAS's 32-bit range"),
            })
        };
        let (m, n, k) = (dim(m)?, dim(n)?, dim(k)?);
        let ty = match dtype {
            Dtype::F32 => sys::cudaDataType::CUDA_R_32F,
            Dtype::F16 => sys::cudaDataType::CUDA_R_16F,
            Dtype::Bf16 => sys::cudaDataType::CUDA_R_16BF,
            other => {
                return Err(BackendError {
                    kind: ErrorKind::Driver,
                    call: "cublasGemmEx",
                    detail: format!("no GEMM of {other:?}"),
                });
            }
        };
        let op_of = |t: bool| {
            if t {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        // Column-major: c^T (n x m, ld n) = op(b)^T (n x k) op(a)^T (k x m). Row-major `b` is
        // k x n (ld n) or, transposed, n x k (ld k); row-major `a` is m x k (ld k) or k x m (ld m).
        let (ldb, lda) = (if trans_b { k } else { n }, if trans_a { m } else { k });
        let (alpha, beta) = (alpha as f32, beta as f32);
        // SAFETY: the caller promises the matrices lie in live allocations; alpha and beta are
        // host f32 values (the default pointer mode), matching CUBLAS_COMPUTE_32F.
        status("cublasGemmEx", unsafe {
            sys::cublasGemmEx(
                self.handle,
                op_of(trans_b),
                op_of(trans_a),
                n,
                m,
                k,
                (&alpha as *const f32).cast(),
                b as *const c_void,
                ty,
                ldb,
                a as *const c_void,
                ty,
                lda,
                (&beta as *const f32).cast(),
                c as *mut c_void,
                ty,
                n,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        })
    }
}
