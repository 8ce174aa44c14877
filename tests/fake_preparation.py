"""`python fake_preparation.py MODEL ROOT SECONDS [LOG]`: `copy-tasks model`'s preparation with
the download and dequantization replaced by a fake that sleeps, then writes a small folder (with
`built_by_pid`, the id of the process that built it) and a line to LOG per build, so that the
tests can race and kill it. The fakes are installed on import: the child process that builds the
model imports this script too."""

import os
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
    (out / "built_by_pid").write_text(str(os.getpid()))
    if len(sys.argv) > 4:
        with open(sys.argv[4], "a") as log:
            log.write("built\n")


real_models.fetch_gguf, real_models.dequantize = fake_fetch, fake_dequantize

if __name__ == "__main__":
    print(real_models.prepare(sys.argv[1], Path(sys.argv[2])))
