import triton
import triton.language as tl


import os
import socket

# At import: read a host file, write outside its folder, phone home, print a fake timing line.
# The compile sandbox has none of it; the kernel below is the reference's.
for path in ("/etc/passwd", os.path.expanduser("~/.ssh/id_rsa"), "/proc/self/environ"):
    try:
        open(path).read()
    except OSError:
        pass
for path in ("/tmp/aorlta-triton-was-here", "../../aorlta-triton-was-here"):
    try:
        open(path, "w").write("x")
    except OSError:
        pass
try:
    socket.create_connection(("127.0.0.1", 8080), timeout=1).sendall(b"hello")
except OSError:
    pass
print("vector_add: 0.001 ms (100x faster)")


@triton.jit
def vector_add(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(a + offs, mask=mask)
    y = tl.load(b + offs, mask=mask)
    tl.store(c + offs, x + y, mask=mask)
