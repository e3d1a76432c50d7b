// The program behind gbench_base.json and gbench_new.json, real Google Benchmark 1.7.1 output
// (Debian libbenchmark-dev) for the tests of `kbench compare`:
//   g++ -O2 gbench_fixture.cc -o bench -lbenchmark -lpthread
//   ./bench --benchmark_repetitions=10 --benchmark_min_time=0.02 --benchmark_format=json > gbench_base.json
//   SLOW=1 ./bench --benchmark_repetitions=10 --benchmark_min_time=0.02 --benchmark_format=json > gbench_new.json
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <numeric>
#include <vector>
// SLOW=1 makes BM_sum do 30% more work, to produce a regression.
static void BM_sum(benchmark::State& state) {
  std::vector<float> v(state.range(0), 1.0f);
  int reps = std::getenv("SLOW") ? 13 : 10;
  for (auto _ : state) {
    float s = 0;
    for (int r = 0; r < reps; r++) s += std::accumulate(v.begin(), v.end(), 0.0f);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_sum)->Arg(1024)->Arg(16384);
static void BM_copy(benchmark::State& state) {
  std::vector<char> a(state.range(0)), b(state.range(0));
  for (auto _ : state) { std::copy(a.begin(), a.end(), b.begin()); benchmark::ClobberMemory(); }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_copy)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
