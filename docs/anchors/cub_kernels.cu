// CUB's merge sort and radix sort of 2^lg u32 keys, one call of each after a warm-up, between
// cudaProfilerStart and cudaProfilerStop, for a per-kernel profile (tuning log, run 353):
//     nvcc -O3 -std=c++17 -arch=sm_90 docs/anchors/cub_kernels.cu -o /tmp/cub_kernels
//     ncu --profile-from-start off --csv --metrics gpu__time_duration.sum,\
//         launch__registers_per_thread,launch__block_size,launch__grid_size,\
//         launch__shared_mem_per_block_static,launch__occupancy_limit_registers /tmp/cub_kernels 28
// ncu runs the kernels at base clocks: their times are about 1.2x those of an unprofiled run.
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include <cuda_profiler_api.h>
#include <vector>

struct Less {
    __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

int main(int argc, char** argv) {
    int lg = argc > 1 ? atoi(argv[1]) : 28;
    size_t n = size_t(1) << lg;
    std::vector<unsigned> h(n);
    unsigned long long s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        h[i] = unsigned(s);
    }
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
