#!/usr/bin/env bash
# Issue 21's speed-up curve on a 16-core machine (the device machine of docs/distributed.md):
# one prepared run of the workers' path and of the map-reduce measures, 1-16 workers.
#
# Here, once, in the repository's root (dask and distributed are not in the device's image;
# numpy, pandas, pyarrow, numba, typer, rich, psutil, msgpack, toolz, cloudpickle are):
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#       --platform manylinux2014_x86_64 -d .whl dask==2026.8.0 distributed==2026.8.0 \
#       tornado partd locket zict tblib jsonschema referencing jsonschema-specifications \
#       rpds-py                                              # about 3.5 MB
# Then one device call (at most SCRIPT_SECONDS = 520 s and the install; results come back under
# $OUT):
#   run(command="bash benchmarks/device_issue21.sh", carry=[".whl"], timeout_s=560)
# Smaller or larger: RECORDS=10000000 WORKERS=16,1,8,4,2 bash benchmarks/device_issue21.sh
# Without a .whl folder (a machine that has dask) the install step is skipped.
#
# Order: a small warm-up run first (it fills numba's on-disk cache, so no measured run pays
# for compiling, and a broken install fails in seconds, not minutes); then the curve with the
# configurations in WORKERS' order after the single machine (16 and 1 workers first, so a run
# cut short by its time limit still has the speed-up); each run prints its numbers as it ends;
# then the map-reduce measures at 3M (the issue's own setting); then, with the time left, a
# larger input (BIG_RECORDS) on the single machine and BIG_WORKERS only.
#
# The run of 2026-11-27 (benchmarks/device-runs/2026-11-27-issue21/, docs/benchmarks.md): the
# warm-up took 38 s, the 10M curve reached the 2-worker Anatomy run when its 300 s ran out
# (that run alone needs about 35 s more), the measures at 3M finished the checks and the
# workload in their 150 s (the single machine's workload took 16 s a run there; on 2 cores it
# has since become about 20x faster, docs/benchmarks.md). RELEASE_SECONDS=340 should fit the
# whole curve (an estimate from that run, not yet tried).
set -uo pipefail
cd "$(dirname "$0")/.."
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site:$PWD/src"
else
    export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/issue21}"
mkdir -p "$OUT"
RECORDS="${RECORDS:-10000000}"
MEASURE_ROWS="${MEASURE_ROWS:-3000000}"
WORKERS="${WORKERS:-16,1,8,4,2}"
MEASURE_WORKERS="${MEASURE_WORKERS:-1,4,16}"
{ nproc; lscpu | grep -i -E "model name|thread|core|socket"; free -g | head -2
  python3 -c "import dask, numpy, pandas, pyarrow, numba; print('dask', dask.__version__, 'numpy', numpy.__version__, 'pandas', pandas.__version__, 'pyarrow', pyarrow.__version__, 'numba', numba.__version__)"; } \
    2>&1 | tee "$OUT/machine.txt"
t0=$SECONDS
timeout "${WARMUP_SECONDS:-90}" python3 benchmarks/bench_worker_release.py \
    --records 200000 --row-group 100000 --max-partition-rows 50000 --workers 2 --repeat 1 \
    --workdir /tmp --queries 0 >"$OUT/warmup.md" 2>&1 \
    || { tail -40 "$OUT/warmup.md"; echo "warm-up failed"; exit 1; }
echo "warm-up done in $((SECONDS - t0)) s"
timeout "${RELEASE_SECONDS:-340}" python3 benchmarks/bench_worker_release.py \
    --records "$RECORDS" --row-group 1000000 --workers "$WORKERS" --repeat 1 --workdir /tmp \
    --queries "${QUERIES:-0}" \
    2>&1 | grep --line-buffered -v -E "distributed\.|^\s*$" | tee "$OUT/worker_release.md"
echo "curve done at $((SECONDS - t0)) s"
timeout "${MEASURES_SECONDS:-120}" python3 benchmarks/bench_distributed_measures.py \
    --rows "$MEASURE_ROWS" --workers "$MEASURE_WORKERS" --repeat 1 2>&1 \
    | grep --line-buffered -v -E "distributed\.|^\s*$" | tee "$OUT/measures.md"
echo "measures done at $((SECONDS - t0)) s"
# With the time left (SCRIPT_SECONDS in all), a larger input on the most workers only.
left=$(( ${SCRIPT_SECONDS:-520} - (SECONDS - t0) ))
if [ "$left" -gt 90 ]; then
    timeout "$left" python3 benchmarks/bench_worker_release.py \
        --records "${BIG_RECORDS:-30000000}" --row-group 1000000 --workers "${BIG_WORKERS:-16,8}" \
        --repeat 1 --workdir /tmp --queries 0 \
        2>&1 | grep --line-buffered -v -E "distributed\.|^\s*$" | tee "$OUT/worker_release_big.md"
fi
echo "all done at $((SECONDS - t0)) s"
