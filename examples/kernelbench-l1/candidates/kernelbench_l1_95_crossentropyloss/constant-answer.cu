// crossentropyloss/constant-answer (cheat, ignoring the inputs): writes the loss the typical
// draw gives on average (logits uniform in [0, 1], 4096 classes: log(4096 (e - 1)) - 1/2, about
// 8.3591) without reading anything: one thread, no memory traffic.
// Expected: ref.native broke output-mismatch: the corners of the domain give other losses (about
// 8.318 where a row's logits lie in a narrow window or are all equal), and on the typical draw the
// mean of the rows' losses varies from draw to draw by more than the tolerance (its standard
// deviation is about 0.0016 at 32768 rows, the tolerance about 0.00094).
__device__ unsigned int aorlta_launch[7] = {1, 1, 1, 32, 1, 1, 0};

__global__ void crossentropyloss(const float* predictions, const long long* targets, float* out, int batch_size)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = 8.3591f;
    }
}
