#!/usr/bin/env bash
# The GPU check (benchmarks/gpu_check.py): tiny models built locally, no network needed.
# Run from the repository root in an environment where copy-tasks is installed:
#   bash benchmarks/gpu_check.sh [gpu_check.py options]
set -euo pipefail
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec timeout 600 python "$(dirname "$0")/gpu_check.py" "$@"
