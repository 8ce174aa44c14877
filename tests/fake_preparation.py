"""`python fake_preparation.py MODEL ROOT SECONDS [LOG]`: `copy-tasks model`'s preparation with
the download and dequantization replaced by a fake that sleeps, then writes a small folder (and
a line to LOG per build), so that the tests can race and kill it."""

import sys
import time
from pathlib import Path

from copy_tasks.experiments import real_models


def fake_fetch(model, folder: Path) -> Path:
    path = folder / model.gguf_name
    path.write_bytes(b"GGUF")
    return path


def fake_dequantize(gguf_path: Path, out: Path) -> None:
    time.sleep(float(sys.argv[3]))
    out.mkdir()
    (out / "model.safetensors").write_bytes(bytes(range(256)) * 64)
    (out / "config.json").write_text("{}")
    if len(sys.argv) > 4:
        with open(sys.argv[4], "a") as log:
            log.write("built\n")


if __name__ == "__main__":
    real_models.fetch_gguf, real_models.dequantize = fake_fetch, fake_dequantize
    print(real_models.prepare(sys.argv[1], Path(sys.argv[2])))
