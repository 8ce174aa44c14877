"""CI's smoke run of every offline task, two docs each, through the installed lm-eval: a bare
`lm_eval` run of a tiny GPT-NeoX (`hf`, samples logged), the same under its chat template at each
family's shortest length, the families with a text source at their shortest length (natural text
from offline Wikipedia, SQuAD from the tests' small file), and `copy-tasks run`s of the tiny model
on `hf_fast` (each offline family's shortest length) and of the n-gram copier.
Run under lm-eval 0.4 and 0.5 into two folders, `.ci/same_runs.py` compares them.

    python .ci/smoke_run.py OUT [--model FOLDER]

OUT/hf, OUT/hf-chat, OUT/hf-text, OUT/hf_fast and OUT/ngram_copier get the results; the tiny
model is written to OUT/model unless --model names one already written (the same weights for both
versions).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

LIMIT = "2"
TASKS = "copy_tasks_offline"


def shortest_tasks(downloads: bool = False) -> str:
    """Each family's shortest length, both variants: of those that need no download, or (`downloads`)
    of those that do."""
    from copy_tasks.probes.families import FAMILIES

    return ",".join(family.task_name(family.lengths[0], forced) for family in FAMILIES.values()
                    if family.needs_download == downloads for forced in (False, True))


def text_sources(out: Path) -> str:
    """--metadata for the families with a text source: offline Wikipedia, and the tests' SQuAD file."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from squad_fixture import write_squad_file

    out.mkdir(parents=True, exist_ok=True)
    squad = write_squad_file(out / "dev-v2.0.json")
    return json.dumps({"copy_tasks_text_source": "wikipedia", "copy_tasks_squad_source": str(squad)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--model", type=Path, help="a tiny model folder written by an earlier smoke run")
    args = parser.parse_args()
    model = args.model
    if model is None:
        from copy_tasks.experiments.tiny_models import build_tiny_model

        model = build_tiny_model("gpt_neox", args.out / "model")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    bin_folder = Path(sys.executable).parent
    hf = [str(bin_folder / "lm_eval"), "--model", "hf", "--model_args", f"pretrained={model}", "--device", "cpu"]
    runs = {
        "hf": [*hf, "--tasks", TASKS],
        "hf-chat": [*hf, "--tasks", shortest_tasks(), "--apply_chat_template"],
        "hf-text": [*hf, "--tasks", shortest_tasks(downloads=True), "--metadata", text_sources(args.out)],
        "hf_fast": [str(bin_folder / "copy-tasks"), "run", "--model", "hf_fast", "--model_args", f"pretrained={model}",
                    "--device", "cpu", "--tasks", shortest_tasks()],
        "ngram_copier": [str(bin_folder / "copy-tasks"), "run", "--model", "ngram_copier", "--tasks", TASKS],
    }
    for name, command in runs.items():
        command += ["--limit", LIMIT, "--log_samples", "--output_path", str(args.out / name)]
        print("+", " ".join(command), flush=True)
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
