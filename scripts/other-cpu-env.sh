#!/usr/bin/env bash
# Print, as `export` lines, the environment that switches this machine's numeric kernels to
# those of another CPU class, for the second strict-nbval run of `make test` (README: "The
# reproducibility rule"). Usage: eval "$(scripts/other-cpu-env.sh)"
#   AVX-512 machine: AVX2 kernels in ATen (PyTorch's vectorised ops) and NumPy's SIMD loops.
#   AVX2-only machine: NumPy's baseline (SSE) loops; ATen stays on AVX2, since the book
#     supports AVX2 and AVX-512 CPUs only (below AVX2, torch.randn itself draws other numbers).
#   Both: MKL's SSE2 code branch (MKL_CBWR=COMPATIBLE). MKL ignores MKL_ENABLE_INSTRUCTIONS on
#     AMD CPUs, so this is the one switch that changes its results (matrix products) on every
#     x86-64 CPU; it stands in for the other vendor's MKL kernels.
# OpenBLAS (NumPy's matrix products) picks its kernel by CPU; OPENBLAS_CORETYPE is deliberately
# left alone: some machines set it for correctness.
# TorchInductor (torch.compile) keeps the code it compiles on disk, under a key that leaves out
# ATen's CPU capability: code compiled by the first run and loaded under ATEN_CPU_CAPABILITY=avx2
# computed wrong values (half of a million float32 results came out 0; with the caches off, or a
# cache of its own, they are right). So this run gets a cache of its own.
set -euo pipefail
echo "export MKL_CBWR=COMPATIBLE"
echo "export TORCHINDUCTOR_CACHE_DIR=${TMPDIR:-/tmp}/torchinductor-other-cpu-$(id -u)"
if grep -qw avx512f /proc/cpuinfo; then
  echo "export ATEN_CPU_CAPABILITY=avx2"
  echo "export MKL_ENABLE_INSTRUCTIONS=AVX2"
  echo "export NPY_DISABLE_CPU_FEATURES='X86_V4 AVX512_ICL AVX512_SPR'"
  echo "export AUTOGRAD_BOOK_KERNELS='AVX2 kernels on an AVX-512 CPU, MKL SSE2 branch'"
else
  echo "export NPY_DISABLE_CPU_FEATURES='X86_V3 X86_V4 AVX512_ICL AVX512_SPR'"
  echo "export AUTOGRAD_BOOK_KERNELS='NumPy baseline loops on an AVX2 CPU, MKL SSE2 branch'"
fi
