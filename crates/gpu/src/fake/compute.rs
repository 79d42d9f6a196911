//! The example tasks computed on the CPU for the fake device: vector add, transpose, block sum,
//! row softmax and matrix product, a linear layer under a ReLU, a copy and a bias added under a
//! ReLU (a plan's epilogues), and
//! a generic elementwise function for any other kernel.
//! The fake reference and the fake candidate both compute through here, so what matters is
//! that each is a deterministic function of the inputs; the shapes come from the buffers'
//! lengths and the integer scalars.

/// One buffer argument as numbers.
#[derive(Debug, Clone)]
pub(crate) struct Buf {
    /// Elements.
    pub values: Vec<f64>,
}

/// The outputs of `compute` over `inputs`, one vector per output of the given lengths.
pub(crate) fn compute(kernel: &str, inputs: &[Buf], out_lens: &[usize], ints: &[i64]) -> Vec<Vec<f64>> {
    let specific = match kernel {
        "vector_add" => vector_add(inputs, out_lens),
        "transpose" => transpose(inputs, out_lens, ints),
        "block_sum" => block_sum(inputs, out_lens),
        "softmax" | "row_softmax" => softmax(inputs, out_lens, ints),
        "matmul" | "sgemm" => matmul(inputs, out_lens, ints),
        "copy" => copy(inputs, out_lens),
        "bias_relu" => bias_relu(inputs, out_lens),
        "linear_relu" => linear_relu(inputs, out_lens),
        _ => None,
    };
    specific.unwrap_or_else(|| generic(inputs, out_lens))
}

/// The first output is the first input (a plan's epilogue that moves a scratch buffer's result).
fn copy(inputs: &[Buf], out_lens: &[usize]) -> Option<Vec<Vec<f64>>> {
    let x = inputs.first()?;
    let n = *out_lens.first()?;
    (x.values.len() >= n).then(|| vec![x.values[..n].to_vec()])
}

/// `max(x + bias, 0)` with the bias repeated along rows: a linear layer's epilogue after a plan's
/// GEMM (`x` its product, `bias` one value per column).
fn bias_relu(inputs: &[Buf], out_lens: &[usize]) -> Option<Vec<Vec<f64>>> {
    let (x, bias) = (inputs.first()?, inputs.get(1)?);
    let n = *out_lens.first()?;
    if x.values.len() < n || bias.values.is_empty() {
        return None;
    }
    let cols = bias.values.len();
    Some(vec![
        (0..n)
            .map(|i| (x.values[i] + bias.values[i % cols]).max(0.0))
            .collect(),
    ])
}

/// `max(x w^T + bias, 0)`: nn.Linear then ReLU (`w` one row per output column, as nn.Linear
/// keeps it; the columns are the bias's length, the inner dimension `w`'s length over them).
fn linear_relu(inputs: &[Buf], out_lens: &[usize]) -> Option<Vec<Vec<f64>>> {
    let (x, w, bias) = (inputs.first()?, inputs.get(1)?, inputs.get(2)?);
    let (n, len) = (bias.values.len(), *out_lens.first()?);
    if n == 0 || w.values.len() % n != 0 || len % n != 0 {
        return None;
    }
    let (k, rows) = (w.values.len() / n, len / n);
    if x.values.len() < rows * k {
        return None;
    }
    Some(vec![
        (0..len)
            .map(|idx| {
                let (i, j) = (idx / n, idx % n);
                let dot: f64 = (0..k).map(|p| x.values[i * k + p] * w.values[j * k + p]).sum();
                (dot + bias.values[j]).max(0.0)
            })
            .collect(),
    ])
}

fn vector_add(inputs: &[Buf], out_lens: &[usize]) -> Option<Vec<Vec<f64>>> {
    let (a, b) = (inputs.first()?, inputs.get(1)?);
    let n = *out_lens.first()?;
    if a.values.len() < n || b.values.len() < n {
        return None;
    }
    Some(vec![(0..n).map(|i| a.values[i] + b.values[i]).collect()])
}

fn shape2(len: usize, ints: &[i64]) -> Option<(usize, usize)> {
    let (r, c) = (
        usize::try_from(*ints.first()?).ok()?,
        usize::try_from(*ints.get(1)?).ok()?,
    );
    (r * c == len).then_some((r, c))
}

fn transpose(inputs: &[Buf], out_lens: &[usize], ints: &[i64]) -> Option<Vec<Vec<f64>>> {
    let x = inputs.first()?;
    let (rows, cols) = shape2(x.values.len(), ints)?;
    if *out_lens.first()? != rows * cols {
        return None;
    }
    let mut out = vec![0.0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            out[j * rows + i] = x.values[i * cols + j];
        }
    }
    Some(vec![out])
}

fn block_sum(inputs: &[Buf], out_lens: &[usize]) -> Option<Vec<Vec<f64>>> {
    let x = inputs.first()?;
    let m = *out_lens.first()?;
    if m == 0 {
        return None;
    }
    let chunk = x.values.len().div_ceil(m).max(1);
    Some(vec![
        (0..m)
            .map(|b| x.values.iter().skip(b * chunk).take(chunk).sum())
            .collect(),
    ])
}

fn softmax(inputs: &[Buf], out_lens: &[usize], ints: &[i64]) -> Option<Vec<Vec<f64>>> {
    let x = inputs.first()?;
    let (rows, cols) = shape2(x.values.len(), ints)?;
    if *out_lens.first()? != rows * cols {
        return None;
    }
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        let row = &x.values[r * cols..(r + 1) * cols];
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for (c, v) in row.iter().enumerate() {
            out[r * cols + c] = (v - m).exp() / s;
        }
    }
    Some(vec![out])
}

fn matmul(inputs: &[Buf], out_lens: &[usize], ints: &[i64]) -> Option<Vec<Vec<f64>>> {
    let (a, b) = (inputs.first()?, inputs.get(1)?);
    let c_len = *out_lens.first()?;
    let dims: Vec<usize> = ints
        .iter()
        .take(3)
        .filter_map(|v| usize::try_from(*v).ok())
        .collect();
    if dims.len() != 3 {
        return None;
    }
    let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let (m, n, k) = perms
        .iter()
        .map(|p| (dims[p[0]], dims[p[1]], dims[p[2]]))
        .find(|&(m, n, k)| a.values.len() == m * k && b.values.len() == k * n && c_len == m * n)?;
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let av = a.values[i * k + p];
            for j in 0..n {
                out[i * n + j] += av * b.values[p * n + j];
            }
        }
    }
    Some(vec![out])
}

fn generic(inputs: &[Buf], out_lens: &[usize]) -> Vec<Vec<f64>> {
    out_lens
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            (0..n)
                .map(|i| {
                    inputs
                        .iter()
                        .enumerate()
                        .filter(|(_, b)| !b.values.is_empty())
                        .map(|(j, b)| b.values[i % b.values.len()] * (j + 1) as f64)
                        .sum::<f64>()
                        + k as f64
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(v: &[f64]) -> Buf {
        Buf { values: v.to_vec() }
    }

    #[test]
    fn the_example_tasks() {
        assert_eq!(
            compute("vector_add", &[buf(&[1.0, 2.0]), buf(&[3.0, 4.0])], &[2], &[2]),
            vec![vec![4.0, 6.0]]
        );
        let t = compute(
            "transpose",
            &[buf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])],
            &[6],
            &[2, 3],
        );
        assert_eq!(t, vec![vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]]);
        assert_eq!(
            compute("block_sum", &[buf(&[1.0, 2.0, 3.0, 4.0, 5.0])], &[2], &[5]),
            vec![vec![6.0, 9.0]]
        );
        let s = compute("softmax", &[buf(&[0.0, 0.0, 1.0, 1.0])], &[4], &[2, 2]);
        assert!(s[0].iter().all(|v| (v - 0.5).abs() < 1e-12));
        // 2x3 times 3x1, scalars given as (M, N, K) = (2, 1, 3).
        let m = compute(
            "matmul",
            &[buf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), buf(&[1.0, 1.0, 1.0])],
            &[2],
            &[2, 1, 3],
        );
        assert_eq!(m, vec![vec![6.0, 15.0]]);
        assert_eq!(
            compute("copy", &[buf(&[1.0, 2.0, 3.0])], &[2], &[2]),
            vec![vec![1.0, 2.0]]
        );
        // Rows of 2: the bias repeats along each row, negatives are cut to zero.
        assert_eq!(
            compute(
                "bias_relu",
                &[buf(&[1.0, -3.0, 2.0, 0.5]), buf(&[0.5, 1.0])],
                &[4],
                &[2]
            ),
            vec![vec![1.5, 0.0, 2.5, 1.5]]
        );
        // x [[1, 2]], w [[1, 0], [0, -1], [1, 1]] (three outputs of two inputs), bias [0, 0, -4].
        assert_eq!(
            compute(
                "linear_relu",
                &[
                    buf(&[1.0, 2.0]),
                    buf(&[1.0, 0.0, 0.0, -1.0, 1.0, 1.0]),
                    buf(&[0.0, 0.0, -4.0])
                ],
                &[3],
                &[1]
            ),
            vec![vec![1.0, 0.0, 0.0]]
        );
        let g = compute("other", &[buf(&[1.0, 2.0])], &[3], &[]);
        assert_eq!(g, vec![vec![1.0, 2.0, 1.0]]);
    }
}
