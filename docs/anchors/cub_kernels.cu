// The CUDA anchors' kernels one by one, for a per-kernel profile: one call of each after a
// warm-up, between cudaProfilerStart and cudaProfilerStop, on 2^lg u32 keys. `sorts` (run 353):
// CUB's merge sort and radix sort of uniform random keys; `toolkit` (run 354): Thrust's set_union
// and set_intersection of two sorted halves, CUB's merge of them, and CUB's DeviceSelect::Unique
// of keys uniform in [0, n/4), sorted (the dedup benchmark's input).
//     nvcc -O3 -std=c++17 -arch=sm_90 docs/anchors/cub_kernels.cu -o /tmp/cub_kernels
//     ncu --profile-from-start off --csv --metrics gpu__time_duration.sum,\
//         launch__registers_per_thread,launch__block_size,launch__grid_size,\
//         launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,\
//         launch__occupancy_limit_registers /tmp/cub_kernels 28 sorts
// ncu runs the kernels at base clocks: their times are about 1.2x those of an unprofiled run.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include <cstring>
#include <cuda_profiler_api.h>
#include <thrust/execution_policy.h>
#include <thrust/set_operations.h>
#include <vector>

struct Less {
    __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

// n keys from xorshift64 (the same seed every run), each reduced by `mod` where it is not 0.
std::vector<unsigned> random_keys(size_t n, unsigned long long mod) {
    std::vector<unsigned> keys(n);
    unsigned long long s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        keys[i] = unsigned(mod ? s % mod : s);
    }
    return keys;
}

// Thrust's set operations and CUB's merge of two sorted halves of uniform random keys, and CUB's
// Unique of the dedup input.
void toolkit(size_t n) {
    size_t m = n / 2;
    std::vector<unsigned> h = random_keys(n, 0), d = random_keys(n, n / 4);
    std::sort(h.begin(), h.begin() + m);
    std::sort(h.begin() + m, h.end());
    std::sort(d.begin(), d.end());
    unsigned *in, *dedup_in, *out, *count;
    cudaMalloc(&in, n * 4);
    cudaMalloc(&dedup_in, n * 4);
    cudaMalloc(&out, n * 4);
    cudaMalloc(&count, 4);
    cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dedup_in, d.data(), n * 4, cudaMemcpyHostToDevice);
    size_t merge_bytes = 0, unique_bytes = 0;
    void *merge_temp = nullptr, *unique_temp = nullptr;
    cub::DeviceMerge::MergeKeys(merge_temp, merge_bytes, in, (int)m, in + m, (int)(n - m), out);
    cub::DeviceSelect::Unique(unique_temp, unique_bytes, dedup_in, out, count, (int)n);
    cudaMalloc(&merge_temp, merge_bytes);
    cudaMalloc(&unique_temp, unique_bytes);
    for (int profiled = 0; profiled < 2; profiled++) {
        if (profiled) cudaProfilerStart();
        thrust::set_union(thrust::device, in, in + m, in + m, in + n, out);
        thrust::set_intersection(thrust::device, in, in + m, in + m, in + n, out);
        cub::DeviceMerge::MergeKeys(merge_temp, merge_bytes, in, (int)m, in + m, (int)(n - m),
                                    out);
        cub::DeviceSelect::Unique(unique_temp, unique_bytes, dedup_in, out, count, (int)n);
        cudaDeviceSynchronize();
        if (profiled) cudaProfilerStop();
    }
}

int main(int argc, char** argv) {
    int lg = argc > 1 ? atoi(argv[1]) : 28;
    size_t n = size_t(1) << lg;
    if (argc > 2 && strcmp(argv[2], "toolkit") == 0) {
        toolkit(n);
        printf("done 2^%d toolkit\n", lg);
        return 0;
    }
    std::vector<unsigned> h = random_keys(n, 0);
    unsigned *in, *out;
    cudaMalloc(&in, n * 4);
    cudaMalloc(&out, n * 4);
    cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
    size_t merge_bytes = 0, radix_bytes = 0;
    void *merge_temp = nullptr, *radix_temp = nullptr;
    cub::DeviceMergeSort::SortKeysCopy(merge_temp, merge_bytes, in, out, (int)n, Less());
    cub::DeviceRadixSort::SortKeys(radix_temp, radix_bytes, in, out, (int)n);
    cudaMalloc(&merge_temp, merge_bytes);
    cudaMalloc(&radix_temp, radix_bytes);
    for (int profiled = 0; profiled < 2; profiled++) {
        if (profiled) cudaProfilerStart();
        cub::DeviceMergeSort::SortKeysCopy(merge_temp, merge_bytes, in, out, (int)n, Less());
        cub::DeviceRadixSort::SortKeys(radix_temp, radix_bytes, in, out, (int)n);
        cudaDeviceSynchronize();
        if (profiled) cudaProfilerStop();
    }
    printf("done 2^%d\n", lg);
}
