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

// The input families (`crates/record/src/kernel/inputs.rs`); their host twin is
// `crates/gpu/src/draw.rs`, formula for formula.
enum {
    FAMILY_TYPICAL = 0, FAMILY_TOP = 1, FAMILY_BOTTOM = 2, FAMILY_ROW_WINDOW = 3,
    FAMILY_CONSTANT_RUNS = 4, FAMILY_SIGNS = 5, FAMILY_MAGNITUDES = 6, FAMILY_SPECIALS = 7
};

#define ROW_SALT 0xA0761D6478BD642FULL
#define RUN_SALT 0xE7037ED1A0B428DBULL
#define BUF_SALT 0x8EBC6AF09C88C6E3ULL

// What a fill or a check of data needs of its op.
struct FillSpec {
    int dtype, kind, family, special;
    double a, b;
    i64 ilo, ihi;
    u64 key, row;
};

__device__ __forceinline__ double pow2_neg(u64 e) { return __longlong_as_double((long long)((1023ULL - e) << 52)); }

__device__ __forceinline__ u64 magnitude_orders(int dtype) {
    return dtype == DT_F16 ? 14ULL : (dtype == DT_F32 || dtype == DT_BF16) ? 24ULL : 30ULL;
}

__device__ double family_value(const FillSpec& f, u64 i) {
    double lo = f.a, hi = f.b;
    if (f.kind == FILL_NORMAL) {
        lo = __dsub_rn(f.a, __dmul_rn(6.0, f.b));
        hi = __dadd_rn(f.a, __dmul_rn(6.0, f.b));
    }
    double range = __dsub_rn(hi, lo);
    double u = uniform01(word(f.key, i, 0));
    u64 wb = word(f.key ^ BUF_SALT, 0, 0);
    u64 r = i / f.row;
    switch (f.family) {
    case FAMILY_TOP: case FAMILY_BOTTOM: {
        double w = __dmul_rn(range, pow2_neg(6 + wb % 7));
        if (f.family == FAMILY_TOP) return __dadd_rn(__dsub_rn(hi, w), __dmul_rn(w, u));
        return __dadd_rn(lo, __dmul_rn(w, u));
    }
    case FAMILY_ROW_WINDOW: {
        double w = __dmul_rn(range, pow2_neg(6 + word(f.key ^ ROW_SALT, r, 0) % 9));
        double start = __dadd_rn(lo, __dmul_rn(__dsub_rn(range, w), uniform01(word(f.key ^ ROW_SALT, r, 1))));
        return __dadd_rn(start, __dmul_rn(w, u));
    }
    case FAMILY_CONSTANT_RUNS: {
        u64 q;
        switch (wb % 4) {
        case 0: q = r; break;
        case 1: q = 0; break;
        default: q = i / (2ULL << (word(f.key ^ BUF_SALT, 0, 1) % 8)); break;
        }
        return __dadd_rn(lo, __dmul_rn(range, uniform01(word(f.key ^ RUN_SALT, q, 0))));
    }
    case FAMILY_SIGNS: {
        int negative;
        switch (wb % 5) {
        case 0: negative = (i & 1ULL) == 1ULL; break;
        case 1: negative = (word(f.key ^ ROW_SALT, r, 2) & 1ULL) == 1ULL; break;
        case 2: negative = (word(f.key ^ RUN_SALT, i / 32, 1) & 1ULL) == 1ULL; break;
        case 3: negative = 1; break;
        default: negative = 0; break;
        }
        return negative ? __dmul_rn(lo, u) : __dmul_rn(hi, u);
    }
    default: {
        double anchor = lo > 0.0 ? lo : (hi < 0.0 ? hi : 0.0);
        double end;
        if (lo < anchor && anchor < hi) end = (word(f.key, i, 1) & 1ULL) == 1ULL ? lo : hi;
        else end = anchor == lo ? hi : lo;
        u64 e = word(f.key, i, 2) % (magnitude_orders(f.dtype) + 1);
        double t = __dmul_rn(__dadd_rn(0.5, __dmul_rn(0.5, u)), pow2_neg(e));
        return __dadd_rn(anchor, __dmul_rn(__dsub_rn(end, anchor), t));
    }
    }
}

// The bits of a special value for element i; 0 in *keep when the element keeps its typical draw.
__device__ u64 special_bits(const FillSpec& f, u64 i, int* keep) {
    u64 count = (u64)__popc((unsigned)f.special);
    *keep = 1;
    if (count == 0 || (word(f.key, i, 1) & 7ULL) != 0) return 0;
    *keep = 0;
    u64 pick = word(f.key, i, 2) % count;
    int bit = 1;
    for (;;) {
        if (f.special & bit) {
            if (pick == 0) break;
            pick -= 1;
        }
        bit <<= 1;
    }
    u64 negative = word(f.key, i, 3) & 1ULL;
    u64 w = word(f.key, i, 4);
    u64 sign, mask, inf, nan;
    if (f.dtype == DT_F32) { sign = negative << 31; mask = 0x7FFFFFULL; inf = 0x7F800000ULL; nan = 0x7FC00000ULL; }
    else if (f.dtype == DT_F16) { sign = negative << 15; mask = 0x3FFULL; inf = 0x7C00ULL; nan = 0x7E00ULL; }
    else { sign = negative << 15; mask = 0x7FULL; inf = 0x7F80ULL; nan = 0x7FC0ULL; }
    if (bit == 1) return sign;
    if (bit == 2) return sign | (1ULL + w % mask);
    if (bit == 4) return sign | inf;
    return nan;
}

__device__ __forceinline__ i64 int_of(const FillSpec& f, double v) {
    double x = round(v);
    if (f.ihi <= f.ilo || x <= (double)f.ilo) return f.ilo;
    if (x >= (double)f.ihi) return f.ihi;
    return (i64)x;
}

// Element i of a fill, as the bits the buffer holds (low bytes used for narrow types).
__device__ u64 fill_bits(const FillSpec& f, u64 i) {
    if (f.kind == FILL_SENTINEL) {
        switch (f.dtype) {
        case DT_F32: return 0x7FC0DEADULL;
        case DT_F16: return 0x7E5AULL;
        case DT_BF16: return 0x7FDAULL;
        case DT_I32: case DT_U32: return 0xDEADBEEFULL;
        default: return 0xDEADBEEFDEADBEEFULL;
        }
    }
    int is_float = f.dtype == DT_F32 || f.dtype == DT_F16 || f.dtype == DT_BF16;
    if (f.family == FAMILY_SPECIALS && is_float) {
        int keep;
        u64 bits = special_bits(f, i, &keep);
        if (!keep) return bits;
    }
    int fam = f.family != FAMILY_TYPICAL && f.family != FAMILY_SPECIALS;
    if (is_float) {
        double v = fam ? family_value(f, i) : draw(f.kind, f.a, f.b, f.key, i);
        float x = __double2float_rn(v);
        if (f.dtype == DT_F32) return (u64)f32_bits(x);
        if (f.dtype == DT_F16) return (u64)f32_to_f16(x);
        return (u64)f32_to_bf16(x);
    }
    i64 v = fam ? int_of(f, family_value(f, i)) : draw_int(f.kind, f.a, f.b, f.ilo, f.ihi, f.key, i);
    if (f.dtype == DT_I32) return (u64)(u32)(int)v;
    if (f.dtype == DT_U32) return (u64)(u32)(v < 0 ? 0 : v);
    return (u64)v;
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
    u64 row;    // fill: elements per row
    int family; // fill: FAMILY_*
    int special; // fill: mask of legal special values
};

// 36 ops keep the batch, passed by value, under the 4 KiB of kernel parameters every driver takes.
#define MAX_OPS 36

struct Batch {
    u64 total;  // work items over every op
    u64 count;
    Op ops[MAX_OPS];
};

__device__ __forceinline__ FillSpec spec_of(const Op& op) {
    FillSpec f;
    f.dtype = op.dtype;
    f.kind = op.fill;
    f.family = op.family;
    f.special = op.special;
    f.a = op.a;
    f.b = op.b;
    f.ilo = op.ilo;
    f.ihi = op.ihi;
    f.key = op.key;
    f.row = op.row ? op.row : 1;
    return f;
}

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
            store_bits((void*)op.p, op.dtype, i, fill_bits(spec_of(op), i));
            break;
        case OP_CHECK_DATA:
            acc.bad += load_bits((const void*)op.p, op.dtype, i) != fill_bits(spec_of(op), i);
            break;
        default:
            compare_one(op, i, acc);
            break;
        }
    }
    if (j < batch.count) flush_acc(batch.ops[j], acc);
}
