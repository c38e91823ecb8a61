// The dedup anchor (tuning log, run 352): CUB's DeviceSelect::Unique on the dedup benchmark's
// input (n keys uniform in [0, n/4), sorted), and a device-to-device copy of as many keys, each
// the median of 11 after a warm-up, device ms. Build and run on the device machine:
//     nvcc -O3 -std=c++17 -arch=sm_90 docs/anchors/cub_unique.cu -o /tmp/cub_unique
//     /tmp/cub_unique
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include <vector>

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e = (x);                                                                 \
        if (e != cudaSuccess) {                                                              \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);  \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

template <class F> float median_ms(F f) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    f();
    for (int i = 0; i < 11; i++) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    for (int lg : {20, 22, 24, 26, 28}) {
        size_t n = size_t(1) << lg;
        std::vector<unsigned> h(n);
        unsigned long long s = 88172645463325252ull + n;
        for (size_t i = 0; i < n; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            h[i] = unsigned(s % (n / 4));
        }
        std::sort(h.begin(), h.end());
        unsigned *in, *out, *cnt;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&cnt, 4));
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        size_t temp = 0;
        void* tmp = nullptr;
        cub::DeviceSelect::Unique(tmp, temp, in, out, cnt, (int)n);
        CK(cudaMalloc(&tmp, temp));
        float u = median_ms([&] { cub::DeviceSelect::Unique(tmp, temp, in, out, cnt, (int)n); });
        unsigned kept;
        CK(cudaMemcpy(&kept, cnt, 4, cudaMemcpyDeviceToHost));
        size_t want = std::unique(h.begin(), h.end()) - h.begin();
        float c = median_ms([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
        double bytes = 4.0 * (n + kept);
        printf("n=2^%d | cub unique u32 %.4f ms (%.0f GB/s, kept %u %s) | cudaMemcpy d2d %.4f ms "
               "(%.0f GB/s) | unique %% of copy %.0f\n",
               lg, u, bytes / u / 1e6, kept, kept == want ? "ok" : "WRONG", c, 8.0 * n / c / 1e6,
               100.0 * (bytes / u) / (8.0 * n / c));
        cudaFree(in);
        cudaFree(out);
        cudaFree(cnt);
        cudaFree(tmp);
    }
}
