"""Run every benchmark: `python benchmarks/run.py`."""

import bench_generation

if __name__ == "__main__":
    bench_generation.main()
