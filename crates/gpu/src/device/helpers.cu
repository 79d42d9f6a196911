// The harness's own device code: it fills a job's buffers (canary guard bands, inputs drawn from
// a secret seed, sentinel outputs), checks them after a launch (guards intact, inputs unchanged,
// outputs still the sentinel where nothing may have written them) and compares a candidate's
// outputs with the reference's, so that only a few counters cross to the host per launch.
//
// Every value is a pure function of (key, element index): the generator is counter based
// (SplitMix64's finaliser over the key and the index), so a check can regenerate what a fill
// wrote without keeping a copy anywhere a kernel could reach. `crates/gpu/src/gen.rs` is the
// host twin of every function here; the harness compares the two at start and refuses to serve
// if they differ. Compiled with `-fmad=false` so no multiply-add is contracted: the doubles below
// round exactly as the host's do.
//
// Plain C with no header, so the same file builds with nvcc and with hipcc.

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned short u16;

#define AORLTA_GOLDEN 0x9E3779B97F4A7C15ULL

enum { DT_F32 = 0, DT_F16 = 1, DT_BF16 = 2, DT_I32 = 3, DT_U32 = 4, DT_I64 = 5 };
enum { FILL_SENTINEL = 0, FILL_UNIFORM = 1, FILL_NORMAL = 2 };

__device__ __forceinline__ u64 mix64(u64 z) {
    z += AORLTA_GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The k-th random word of element i.
__device__ __forceinline__ u64 word(u64 key, u64 i, u64 k) {
    return mix64(key ^ ((i * 16ULL + k) * 0xD1B54A32D192ED03ULL));
}

__device__ __forceinline__ double uniform01(u64 w) {
    return (double)(w >> 11) * (1.0 / 9007199254740992.0);
}

// Irwin-Hall of twelve 32-bit uniforms, exact in double: a standard normal to within 6 sigma.
__device__ __forceinline__ double normal01(u64 key, u64 i) {
    u64 s = 0;
    for (u64 k = 0; k < 12; ++k) s += word(key, i, k) >> 32;
    return (double)s * (1.0 / 4294967296.0) - 6.0;
}

__device__ __forceinline__ u32 f32_bits(float f) { return __float_as_uint(f); }

// float to IEEE half, round to nearest even (the host's `half::f16::from_f32`).
__device__ u16 f32_to_f16(float f) {
    u32 x = f32_bits(f);
    u32 sign = (x >> 16) & 0x8000u;
    u32 exp = (x >> 23) & 0xFFu;
    u32 man = x & 0x7FFFFFu;
    if (exp == 0xFFu) return (u16)(sign | 0x7C00u | (man ? (0x200u | (man >> 13)) : 0u));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1F) return (u16)(sign | 0x7C00u);
    if (e <= 0) {
        if (e < -10) return (u16)sign;
        man |= 0x800000u;
        u32 shift = (u32)(14 - e);
        u32 half_m = man >> shift;
        u32 rem = man & ((1u << shift) - 1u);
        u32 halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (half_m & 1u))) half_m += 1u;
        return (u16)(sign | half_m);
    }
    u32 h = sign | ((u32)e << 10) | (man >> 13);
    u32 rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h += 1u;
    return (u16)h;
}

__device__ float f16_to_f32(u16 h) {
    u32 sign = ((u32)h & 0x8000u) << 16;
    u32 exp = ((u32)h >> 10) & 0x1Fu;
    u32 man = (u32)h & 0x3FFu;
    u32 bits;
    if (exp == 0x1Fu) {
        bits = sign | 0x7F800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            int e = -1;
            do { ++e; man <<= 1; } while ((man & 0x400u) == 0);
            bits = sign | ((u32)(127 - 15 - e) << 23) | ((man & 0x3FFu) << 13);
        }
    } else {
        bits = sign | ((exp + 127u - 15u) << 23) | (man << 13);
    }
    return __uint_as_float(bits);
}

// float to bfloat16, round to nearest even (the host's `half::bf16::from_f32`).
__device__ u16 f32_to_bf16(float f) {
    u32 x = f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (u16)((x >> 16) | 0x40u);
    u32 round = 0x7FFFu + ((x >> 16) & 1u);
    return (u16)((x + round) >> 16);
}

__device__ float bf16_to_f32(u16 b) { return __uint_as_float(((u32)b) << 16); }

// The generated value of element i as a double, before conversion to the buffer's type.
__device__ __forceinline__ double draw(int kind, double a, double b, u64 key, u64 i) {
    if (kind == FILL_UNIFORM) return __dadd_rn(a, __dmul_rn(__dsub_rn(b, a), uniform01(word(key, i, 0))));
    return __dadd_rn(a, __dmul_rn(b, normal01(key, i)));
}

__device__ __forceinline__ i64 draw_int(int kind, double a, double b, i64 ilo, i64 ihi, u64 key, u64 i) {
    if (kind == FILL_UNIFORM) {
        if (ihi <= ilo) return ilo;
        u64 span = (u64)(ihi - ilo) + 1ULL;
        return ilo + (i64)(word(key, i, 0) % span);
    }
    return (i64)round(__dadd_rn(a, __dmul_rn(b, normal01(key, i))));
}

// Element i of a fill, as the bits the buffer holds (low bytes used for narrow types).
__device__ u64 fill_bits(int dtype, int kind, double a, double b, i64 ilo, i64 ihi, u64 key, u64 i) {
    if (kind == FILL_SENTINEL) {
        switch (dtype) {
        case DT_F32: return 0x7FC0DEADULL;
        case DT_F16: return 0x7E5AULL;
        case DT_BF16: return 0x7FDAULL;
        case DT_I32: case DT_U32: return 0xDEADBEEFULL;
        default: return 0xDEADBEEFDEADBEEFULL;
        }
    }
    switch (dtype) {
    case DT_F32: return (u64)f32_bits(__double2float_rn(draw(kind, a, b, key, i)));
    case DT_F16: return (u64)f32_to_f16(__double2float_rn(draw(kind, a, b, key, i)));
    case DT_BF16: return (u64)f32_to_bf16(__double2float_rn(draw(kind, a, b, key, i)));
    case DT_I32: return (u64)(u32)(int)draw_int(kind, a, b, ilo, ihi, key, i);
    case DT_U32: { i64 v = draw_int(kind, a, b, ilo, ihi, key, i); return (u64)(u32)(v < 0 ? 0 : v); }
    default: return (u64)draw_int(kind, a, b, ilo, ihi, key, i);
    }
}

__device__ __forceinline__ u64 load_bits(const void* p, int dtype, u64 i) {
    switch (dtype) {
    case DT_F16: case DT_BF16: return (u64)((const u16*)p)[i];
    case DT_I64: return ((const u64*)p)[i];
    default: return (u64)((const u32*)p)[i];
    }
}

__device__ __forceinline__ void store_bits(void* p, int dtype, u64 i, u64 v) {
    switch (dtype) {
    case DT_F16: case DT_BF16: ((u16*)p)[i] = (u16)v; break;
    case DT_I64: ((u64*)p)[i] = v; break;
    default: ((u32*)p)[i] = (u32)v; break;
    }
}

__device__ __forceinline__ double as_double(int dtype, u64 bits) {
    switch (dtype) {
    case DT_F32: return (double)__uint_as_float((u32)bits);
    case DT_F16: return (double)f16_to_f32((u16)bits);
    case DT_BF16: return (double)bf16_to_f32((u16)bits);
    case DT_I32: return (double)(int)(u32)bits;
    case DT_U32: return (double)(u32)bits;
    default: return (double)(i64)bits;
    }
}

__device__ __forceinline__ unsigned char canary(u64 offset) {
    return (unsigned char)((unsigned char)(offset * 151ULL) ^ 0xA5u);
}

// One operation of a batch: what `crates/gpu/src/cuda.rs` packs for each `HelperOp`.
enum { OP_FILL_GUARD = 0, OP_CHECK_GUARD = 1, OP_FILL_DATA = 2, OP_CHECK_DATA = 3, OP_COMPARE = 4 };

struct Op {
    u64 kind;   // OP_*
    u64 p;      // destination, source, or the expected output
    u64 q;      // the candidate's output (compare)
    u64 n;      // bytes (guards) or elements (data)
    u64 key;    // canary offset (guards) or the fill's key
    u64 out;    // the counter(s) added to
    double a;   // fill: lo or mean; compare: atol
    double b;   // fill: hi or std; compare: rtol
    i64 ilo;
    i64 ihi;
    int dtype;
    int fill;   // FILL_*
    u64 start;  // the op's first index in the batch's work
};

#define MAX_OPS 40

struct Batch {
    u64 total;  // work items over every op
    u64 count;
    Op ops[MAX_OPS];
};

// What one thread gathered for the op it is on, added to the op's counters when it moves on.
struct Acc {
    u64 bad;
    u64 first;  // ~index of the first bad element, 0 when none
    double worst;
};

__device__ void flush_acc(const Op& op, Acc& acc) {
    if (op.kind == OP_CHECK_GUARD || op.kind == OP_CHECK_DATA) {
        if (acc.bad) atomicAdd((u64*)op.out, acc.bad);
    } else if (op.kind == OP_COMPARE) {
        u64* out = (u64*)op.out;
        if (acc.bad) {
            atomicAdd(&out[0], acc.bad);
            atomicMax(&out[1], acc.first);
        }
        if (acc.worst > 0.0) atomicMax(&out[2], (u64)__double_as_longlong(acc.worst));
    }
    acc.bad = 0;
    acc.first = 0;
    acc.worst = 0.0;
}

__device__ void compare_one(const Op& op, u64 i, Acc& acc) {
    u64 eb = load_bits((const void*)op.p, op.dtype, i);
    u64 gb = load_bits((const void*)op.q, op.dtype, i);
    if (eb == gb) return;
    double r = as_double(op.dtype, eb);
    double c = as_double(op.dtype, gb);
    int ok;
    int is_float = op.dtype == DT_F32 || op.dtype == DT_F16 || op.dtype == DT_BF16;
    if (is_float) {
        int rn = isnan(r), cn = isnan(c);
        if (rn && cn) {
            ok = 1;
        } else if (!rn && !cn) {
            if (isinf(r) || isinf(c)) {
                ok = r == c;
            } else {
                double d = fabs(__dsub_rn(c, r));
                acc.worst = fmax(acc.worst, d);
                ok = d <= __dadd_rn(op.a, __dmul_rn(op.b, fabs(r)));
            }
        } else {
            ok = 0;
        }
    } else {
        double d = fabs(__dsub_rn(c, r));
        acc.worst = fmax(acc.worst, d);
        ok = d <= op.a;
    }
    if (!ok) {
        if (acc.bad == 0 || ~i > acc.first) acc.first = ~i;
        acc.bad += 1;
    }
}

// Runs a batch of operations over one grid: the work items of every op laid end to end, each
// thread taking items a grid apart and keeping its own counts until it moves to the next op.
extern "C" __global__ void aorlta_run(const Batch batch) {
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 j = 0;
    Acc acc = {0, 0, 0.0};
    for (; g < batch.total; g += stride) {
        while (j + 1 < batch.count && g >= batch.ops[j + 1].start) {
            flush_acc(batch.ops[j], acc);
            ++j;
        }
        const Op& op = batch.ops[j];
        u64 i = g - op.start;
        switch (op.kind) {
        case OP_FILL_GUARD:
            ((unsigned char*)op.p)[i] = canary(op.key + i);
            break;
        case OP_CHECK_GUARD:
            acc.bad += ((const unsigned char*)op.p)[i] != canary(op.key + i);
            break;
        case OP_FILL_DATA:
            store_bits((void*)op.p, op.dtype, i, fill_bits(op.dtype, op.fill, op.a, op.b, op.ilo, op.ihi, op.key, i));
            break;
        case OP_CHECK_DATA:
            acc.bad += load_bits((const void*)op.p, op.dtype, i) != fill_bits(op.dtype, op.fill, op.a, op.b, op.ilo, op.ihi, op.key, i);
            break;
        default:
            compare_one(op, i, acc);
            break;
        }
    }
    if (j < batch.count) flush_acc(batch.ops[j], acc);
}
