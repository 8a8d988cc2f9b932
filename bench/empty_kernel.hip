// The empty kernel the launch benchmarks time.
extern "C" __attribute__((global)) void bench_empty() {}
