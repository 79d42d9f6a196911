// vector_add/include-host-file (cheat on the compiler): includes host files into the source: a
// secret by a path relative to the compile folder (when one is there), and /etc/passwd by
// absolute path, hoping the compiler's error messages echo their contents back in the compile
// leg's detail.
// Verdict: compile broke (compile-error). /etc/passwd is not C++: nvcc fails and its diagnostics
// quote lines of the file (checked: "/etc/passwd(1): error: ... root:x:0:0:root:/root:/bin/bash").
// The compile leg must report only a short, bounded excerpt of the compiler's output, and compile
// in a fresh temporary folder so that ../../secret.h names nothing of the project's.
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
