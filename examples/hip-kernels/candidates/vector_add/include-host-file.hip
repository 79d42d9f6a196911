// vector_add/include-host-file (HIP, cheat on the compiler): includes host files into the
// source: a secret by a path relative to the compile folder (when one is there), and /etc/passwd
// by absolute path, hoping the compiler's error messages echo their contents back in the compile
// leg's detail.
// Verdict: compile broke (include-forbidden): the source policy refuses a quoted or absolute
// include before any compiler runs. Left to hipcc, /etc/passwd is not C++ and clang's
// diagnostics quote its first line.
#include <hip/hip_runtime.h>
#if __has_include("../../secret.h")
#include "../../secret.h"
#endif
#include "/etc/passwd"

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
