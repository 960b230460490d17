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
#       tornado partd locket zict tblib                      # about 3 MB
# Then one device call (about 9 minutes at the defaults; results come back under $OUT):
#   run(command="bash benchmarks/device_issue21.sh", carry=[".whl"], timeout_s=590)
# Smaller or larger: RECORDS=10000000 WORKERS=1,2,4,8,16 bash benchmarks/device_issue21.sh
# Without a .whl folder (a machine that has dask) the install step is skipped.
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
RECORDS="${RECORDS:-30000000}"
MEASURE_ROWS="${MEASURE_ROWS:-3000000}"
WORKERS="${WORKERS:-1,2,4,8,16}"
{ nproc; free -g | head -2; python3 -c "import dask, numpy, pyarrow; print(dask.__version__, numpy.__version__, pyarrow.__version__)"; } \
    2>&1 | tee "$OUT/machine.txt"
timeout "${RELEASE_SECONDS:-400}" python3 benchmarks/bench_worker_release.py \
    --records "$RECORDS" --row-group 1000000 --workers "$WORKERS" --repeat 1 --workdir /tmp \
    --queries "${QUERIES:-0}" \
    2>&1 | tee "$OUT/worker_release.md"
timeout "${MEASURES_SECONDS:-130}" python3 benchmarks/bench_distributed_measures.py \
    --rows "$MEASURE_ROWS" --workers "$WORKERS" --repeat 1 2>&1 | tee "$OUT/measures.md"
