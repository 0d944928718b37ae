"""The storage the runners share (sandbox, study, diagnostics, the command line).

* :func:`write_atomic`: every file is written to a fresh temporary file beside
  its name and renamed over it, so a kill never leaves a partial file; an
  ``OSError`` (a full disk, a folder in the way) names the file.
* :func:`locked`: one writer per output folder.  The writer holds an
  exclusive ``fcntl.flock`` on the folder's :data:`LOCK_FILE` (holding its
  pid) for the whole run, settings file included; the OS releases it when the
  process ends, however it ends.  A second writer is refused with a
  ``ValueError`` naming the holder's pid; :func:`check_unlocked` gives the same
  error to a reader while a writer is at work.
* :func:`write_tables` and :func:`verified_table`: the top-level tables of a
  folder (``curves.csv``, ``asymptotic.csv``, ``states.csv``, the
  diagnostics' summaries) are listed with their SHA-256 in the folder's
  :data:`CHECKSUMS_FILE`, written after them::

      {"format": 1, "settings_file": "config.json", "settings_sha256": "...",
       "tables": {"curves.csv": "<sha256 of its bytes>"}}

  ``settings_file`` (or null) is the folder's settings file and
  ``settings_sha256`` the SHA-256 of its bytes when the tables were written,
  so tables left by a run that did not finish under new settings are told
  apart too.  A table is read only through :func:`verified_table`: an edited,
  cut or unlisted table, or one without its checksum file, is refused, naming
  the file; rerunning the same command rebuilds the tables from the verified
  parts.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import time
import uuid
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, overload

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from mri_theory._utils import validation as check
from mri_theory._utils.registry import label
from mri_theory._utils.tables import read_csv_exact

fcntl: ModuleType | None  # POSIX only
try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no folder locks
    fcntl = None

#: The settings file of a :func:`mri_theory.runners.sandbox.run_curves` folder (a study's pairings are such folders).
CURVES_SETTINGS_FILE = "config.json"
#: The sandbox's table and the folder of its parts.
CURVES_RESULTS_FILE = "curves.csv"
PARTS_DIR = "parts"
#: The lock file of an output folder (it holds the pid of the last writer).
LOCK_FILE = ".lock"
#: The checksums of a folder's top-level tables.
CHECKSUMS_FILE = "checksums.json"
_FORMAT = 1
_RERUN = "run the same command again to rebuild the tables from the verified parts"

#: The folders locked by this process (resolved paths): its readers do not wait for itself.
_held: set[Path] = set()


def write_atomic(data: bytes, path: Path) -> None:
    """Write ``data`` to a fresh temporary file beside ``path``, then rename it to ``path``.

    A kill never leaves a partial file under ``path``.  The file is created
    with mode ``0o666`` minus the umask, like any file the user creates.  An
    ``OSError`` (no space left, a folder in place of the file, ...) is raised
    again with ``path`` as its file name, so its message names the file.
    """
    tmp = path.parent / f".tmp-{uuid.uuid4().hex}{path.suffix}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """The bytes every stored table is written as: CSV without the index, ``\\n`` line ends."""
    return frame.to_csv(index=False, lineterminator="\n").encode()


def remove_orphans(folder: Path) -> list[Path]:
    """Remove the temporary files a killed :func:`write_atomic` left in ``folder`` and its subfolders one level
    down (``parts/``, a study's pairings); called by :func:`locked` once it holds the folder, so no writer is at
    work there. Returns the files removed."""
    orphans = sorted([*folder.glob(".tmp-*"), *folder.glob("*/.tmp-*")])
    for orphan in orphans:
        with contextlib.suppress(FileNotFoundError):
            orphan.unlink()
    return orphans


def _holder(lock_file: Path) -> str:
    """The pid recorded in ``lock_file``, as text (``"unknown"`` if it cannot be read).

    A holder writes its pid just after it takes the lock (and empties the
    file when it lets go), so an empty file is read again for up to a second.
    """
    for _ in range(100):
        try:
            text = lock_file.read_text(encoding="ascii").strip()
        except (OSError, ValueError):
            return "unknown"
        if text.isdigit():
            return text
        time.sleep(0.01)
    return "unknown"


def _busy(folder: Path, name: str) -> ValueError:
    lock_file = folder / LOCK_FILE
    return ValueError(f"{name}: {folder} is being written by another process (pid {_holder(lock_file)}, holding "
                      f"{lock_file}); wait for it to finish, or use another folder")


@contextlib.contextmanager
def locked(folder: Path, name: str, create: bool = True, owner: str | None = None) -> Iterator[Path]:
    """Hold the exclusive lock of the output folder ``folder`` (created if needed when ``create``).

    Once held, the temporary files a killed writer left are removed (:func:`remove_orphans`) and, with
    ``owner`` (a runner's name), the folder is claimed for it again (another process may have taken it since
    the caller's check) and marked (:func:`claim`, :func:`mark_owner`).

    Raises a ``ValueError`` naming ``name`` and the holder's pid when another
    process (or another call in this one) holds it, or naming ``name`` when
    the folder or its lock file cannot be created.  The lock is released on
    exit (and by the OS if the process dies).
    """
    try:
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise ValueError(f"{name}: cannot write to {folder} (creating it or its lock file {LOCK_FILE}: "
                         f"{exc.strerror or exc})") from None
    key = folder.resolve()
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise _busy(folder, name) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        remove_orphans(folder)
        if owner is not None:
            claim(folder, owner, name)
            mark_owner(folder, owner)
        _held.add(key)
        try:
            yield folder
        finally:
            _held.discard(key)
            os.ftruncate(fd, 0)  # no stale pid for the next writer's rivals to read
    finally:
        os.close(fd)  # releases the lock


def check_unlocked(folder: Path, name: str) -> None:
    """A ``ValueError`` naming ``name`` and the writer's pid if another process is writing ``folder``."""
    lock_file = folder / LOCK_FILE
    if fcntl is None or folder.resolve() in _held or not lock_file.is_file():
        return
    try:
        fd = os.open(lock_file, os.O_RDONLY)
    except OSError:
        return  # unreadable: the tables' checksums still guard what is read
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(folder, name) from None
    finally:
        os.close(fd)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_tables(folder: Path, tables: Mapping[str, bytes], settings_file: str | None) -> None:
    """Write each table ``{file name: bytes}`` into ``folder`` atomically, then their :data:`CHECKSUMS_FILE`.

    ``settings_file``: the name of the folder's settings file (None if it
    has none), whose checksum is recorded beside the tables'.
    """
    for file, data in tables.items():
        write_atomic(data, folder / file)
    settings = None if settings_file is None else _sha256((folder / settings_file).read_bytes())
    record = {"format": _FORMAT, "settings_file": settings_file, "settings_sha256": settings,
              "tables": {file: _sha256(data) for file, data in tables.items()}}
    write_atomic(json.dumps(record, indent=2, sort_keys=True).encode(), folder / CHECKSUMS_FILE)


def _well_formed(record: Any) -> bool:
    return (isinstance(record, dict) and set(record) == {"format", "settings_file", "settings_sha256", "tables"}
            and record["format"] == _FORMAT and isinstance(record["tables"], dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in record["tables"].items())
            and (record["settings_file"] is None) == (record["settings_sha256"] is None)
            and (record["settings_file"] is None or (isinstance(record["settings_file"], str)
                                                      and isinstance(record["settings_sha256"], str))))


def recorded_tables(folder: Path) -> list[str]:
    """The table names that ``folder``'s :data:`CHECKSUMS_FILE` lists (none when it is missing or corrupt: reading
    one of them then fails in :func:`verified_table`, which says why)."""
    try:
        record = json.loads((folder / CHECKSUMS_FILE).read_bytes())
    except (OSError, ValueError):
        return []
    return sorted(record["tables"]) if _well_formed(record) else []


def verified_table(file: Path, name: str) -> bytes:
    """The bytes of the table ``file`` once they match the checksum recorded beside it (:func:`write_tables`).

    Raises a ``ValueError`` naming ``name`` and the file when the folder is
    being written (:func:`check_unlocked`), when the checksum file is
    missing, corrupt or does not list the table, when the table's bytes
    differ from its checksum (edited, cut or replaced), or when the settings
    file changed since the table was written (a later run did not finish).
    """
    folder = file.parent
    check_unlocked(folder, name)
    sidecar = folder / CHECKSUMS_FILE
    if not sidecar.is_file():
        raise ValueError(f"{name}: {file} cannot be verified: {sidecar} is missing (a run that did not finish, "
                         f"a folder of an older version, or a table written by hand); {_RERUN}")
    try:
        record = json.loads(sidecar.read_bytes())
    except (OSError, ValueError):
        record = None
    if not _well_formed(record):
        raise ValueError(f"{name}: {file} cannot be verified: {sidecar} is unreadable or corrupt; {_RERUN}")
    expected = record["tables"].get(file.name)
    if expected is None:
        raise ValueError(f"{name}: {file} cannot be verified: {sidecar} does not list it; {_RERUN}")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ValueError(f"{name}: {file} is unreadable ({exc.strerror or exc})") from None
    if _sha256(data) != expected:
        raise ValueError(f"{name}: {file} does not match its checksum in {sidecar}: the table was edited, cut "
                         f"or replaced; {_RERUN}")
    if record["settings_file"] is not None:
        settings = folder / record["settings_file"]
        try:
            current = _sha256(settings.read_bytes())
        except OSError:
            current = None
        if current != record["settings_sha256"]:
            raise ValueError(f"{name}: {file} was written under other settings than {settings} holds now (a later "
                             f"run did not finish, or the settings were edited); {_RERUN}")
    return data


def verified_csv(file: Path, name: str, columns: list[str], what: str) -> pd.DataFrame:
    """The table ``file`` read once it matches its checksum (:func:`verified_table`) and has ``columns``.

    ``what`` describes the table in the messages (``"a results table of
    run_curves"``); every error is a ``ValueError`` naming ``name`` and the file.
    """
    data = verified_table(file, name)
    try:
        table = read_csv_exact(io.BytesIO(data))
    except ValueError as exc:  # pandas' parser and empty-data errors, bad encodings
        raise ValueError(f"{name}: {file} is not a readable CSV ({exc})") from None
    if list(table.columns) != columns:
        raise ValueError(f"{name}: {file} is not {what}: columns {list(table.columns)}, expected {columns}")
    return table


# ---------------------------------------------------------------- part files and results folders

#: First bytes of a part file; the part header's JSON follows on the same line.
PART_MAGIC = b"# mri-theory part "

PART_FORMAT = 1

PART_FIELDS = {"format", "config_sha256", "rows", "sha256"}  #: besides the part's key

class DamagedPartWarning(UserWarning):
    """A part file in ``out/parts`` failed verification on resume; it is recomputed and overwritten.

    See Also
    --------
    mri_theory.runners.run_curves : Verifies each part of its ``out`` folder before reusing it.

    Examples
    --------
    A part of a finished folder is cut; the rerun warns, naming the file and the reason, and recomputes it:

    >>> import tempfile
    >>> import warnings
    >>> from pathlib import Path
    >>> from mri_theory.runners import DamagedPartWarning, Execution, run_curves
    >>> tiny = dict(problem="four-gaussian", classifier="lda", strategies=["RS", "SE"], pool_size=4, replicates=1,
    ...             population_size=100, execution=Execution(progress=False))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> curves = run_curves(**tiny, out=tmp.name)
    >>> part = Path(tmp.name) / "parts" / "SE__00000.csv"
    >>> _ = part.write_bytes(part.read_bytes()[:-10])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     again = run_curves(**tiny, out=tmp.name)
    >>> [warning.category.__name__ for warning in caught], issubclass(DamagedPartWarning, UserWarning)
    (['DamagedPartWarning'], True)
    >>> print(caught[0].message)
    damaged part ...SE__00000.csv: checksum mismatch: the data were cut or changed; recomputing it
    >>> again.equals(curves)  # the recomputed part has the same rows
    True
    >>> tmp.cleanup()
    """

def canonical_sha256(settings: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``settings`` (sorted keys, no spaces, UTF-8)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True, separators=(",", ":")).encode()).hexdigest()

def write_keyed_part(frame: pd.DataFrame, path: Path, key: Mapping[str, Any], config_sha256: str) -> None:
    """A table as a verifiable part file at ``path``: the header line, then the CSV body.

    The header is ``# mri-theory part {json}`` with the JSON object ``key``
    (what the part holds, e.g. strategy and replicate) plus ``format``,
    ``config_sha256`` (of the settings that determine its rows), ``rows``
    and ``sha256`` (of the body's bytes); the runners of the sandbox, the
    study and the diagnostics share this format (:mod:`mri_theory.runners.sandbox`, "Output folder").
    """
    body = csv_bytes(frame)
    header = {**key, "format": PART_FORMAT, "config_sha256": config_sha256, "rows": len(frame),
              "sha256": hashlib.sha256(body).hexdigest()}
    write_atomic(PART_MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + body, path)

class DamagedPart(Exception):
    """Why a part file cannot be trusted (internal; reported as a :class:`DamagedPartWarning`)."""

def read_keyed_part(path: Path, key: Mapping[str, Any], config_sha256: str, rows: int,
                     what: str = "part") -> pd.DataFrame:
    """The CSV body of a part written by :func:`write_keyed_part`, after the checks every part shares.

    The header must hold exactly ``key``'s fields (with these values, else
    "wrong ``what``"), ``config_sha256`` and ``rows``; the body must match the
    header's checksum and parse as CSV with ``rows`` rows.  Raises
    :class:`DamagedPart` with the reason; the caller checks the content.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DamagedPart(f"unreadable ({exc.strerror or exc})") from None
    if not data:
        raise DamagedPart("empty file")
    first, newline, body = data.partition(b"\n")
    if not newline or not first.startswith(PART_MAGIC):
        raise DamagedPart(f"bad header: the first line is not {PART_MAGIC.decode().strip()!r} and its JSON")
    try:
        header = json.loads(first[len(PART_MAGIC):])
    except ValueError:
        raise DamagedPart("bad header: unreadable JSON") from None
    fields = PART_FIELDS | set(key)
    if not isinstance(header, dict) or set(header) != fields:
        raise DamagedPart(f"bad header: expected the keys {sorted(fields)}")
    if header["format"] != PART_FORMAT:
        raise DamagedPart(f"unknown part format {header['format']!r}")
    held = tuple(header[name] for name in key)
    if held != tuple(key.values()):
        raise DamagedPart(f"wrong {what}: it holds ({', '.join(map(repr, held))}), "
                           f"not ({', '.join(map(repr, key.values()))})")
    if header["config_sha256"] != config_sha256:
        raise DamagedPart("written for a different configuration (config hash differs)")
    if header["rows"] != rows:
        raise DamagedPart(f"wrong row count: the header gives {header['rows']!r} rows, the configuration {rows}")
    if hashlib.sha256(body).hexdigest() != header["sha256"]:
        raise DamagedPart("checksum mismatch: the data were cut or changed")
    try:
        frame = read_csv_exact(io.BytesIO(body))
    except ValueError as exc:  # pandas' parser and empty-data errors, bad encodings
        raise DamagedPart(f"unreadable CSV body ({exc})") from None
    if len(frame) != rows:
        raise DamagedPart(f"wrong row count: {len(frame)} rows, expected {rows}")
    return frame

#: The settings file that marks a results folder of each runner (sandbox, study, diagnostics).
RUNNER_FILES = {CURVES_SETTINGS_FILE: "run_curves", "study.json": "run_study", "diagnostics.json": "score_states"}

#: The file in which a runner records that it owns its output folder (its name), once it holds the folder's lock.
OWNER_FILE = ".runner"
#: How the owner of a folder written before :data:`OWNER_FILE` existed is told: a file that only that runner writes
#: at the top of its folder (the settings files of :data:`RUNNER_FILES`, the leaderboard's record and table, the
#: diagnostics' summaries).
OWNER_MARKS = {**RUNNER_FILES, "leaderboard.json": "run_leaderboard", "leaderboard.csv": "run_leaderboard",
               "summary.csv": "run_diagnostics", "DIAGNOSTICS.md": "run_diagnostics",
               "sensitivity.csv": "run_sensitivity", "SENSITIVITY.md": "run_sensitivity"}


def pairing_folder(out: Path, problem: str, classifier: str) -> Path:
    """A study's folder of the (problem, classifier) pairing labelled so: ``{out}/{problem}__{classifier}``."""
    return out / f"{problem}__{classifier}"


def folder_owner(folder: Path) -> str | None:
    """The runner that made ``folder``: its :data:`OWNER_FILE`, else inferred from :data:`OWNER_MARKS`; None for
    a new or empty folder (or one no runner made)."""
    try:
        recorded = (folder / OWNER_FILE).read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        recorded = ""
    if recorded:
        return recorded
    owners = sorted({runner for file, runner in OWNER_MARKS.items() if (folder / file).exists()})
    return " and ".join(owners) or None


def claim(folder: Path, runner: str, name: str) -> None:
    """Refuse ``folder`` (naming the argument ``name``) unless it is new or made by ``runner``: runners never write
    into each other's folders (each would replace the other's ``checksums.json``, leaving its tables
    unverifiable)."""
    owner = folder_owner(folder)
    if owner is not None and owner != runner:
        raise ValueError(f"{name}: {folder} holds the results of {owner}, not of {runner}; use another folder")


def mark_owner(folder: Path, runner: str) -> None:
    """Record ``runner`` as the owner of ``folder`` (after :func:`claim`, under the folder's lock)."""
    if not (folder / OWNER_FILE).is_file():
        write_atomic(runner.encode(), folder / OWNER_FILE)

@overload
def check_out(out: None, layout: Sequence[tuple[str, bool]] | None = None,
              own: str = CURVES_SETTINGS_FILE) -> None: ...
@overload
def check_out(out: str | os.PathLike[str], layout: Sequence[tuple[str, bool]] | None = None,
              own: str = CURVES_SETTINGS_FILE) -> Path: ...
@overload
def check_out(out: Any, layout: Sequence[tuple[str, bool]] | None = None,
              own: str = CURVES_SETTINGS_FILE) -> Path | None: ...
def check_out(out: Any, layout: Sequence[tuple[str, bool]] | None = None,
              own: str = CURVES_SETTINGS_FILE) -> Path | None:
    """``out`` as a Path, or None; raises unless it is (or can become) a writable results folder.

    ``layout``: the (name, is a folder) entries the folder may hold (default:
    the sandbox's ``parts/``, ``config.json`` and ``curves.csv``); an entry of
    the wrong kind is refused, and so is a folder in place of the lock or the
    checksum file (``mri_theory.runners._store``).  ``own``: the caller's settings file
    (:data:`RUNNER_FILES`); a folder made by another runner is refused (:func:`claim`).
    """
    if out is None:
        return None
    path = check.output_folder(out, "out")
    if layout is None:
        layout = ((PARTS_DIR, True), (CURVES_SETTINGS_FILE, False), (CURVES_RESULTS_FILE, False))
    layout = (*layout, (LOCK_FILE, False), (CHECKSUMS_FILE, False))
    for name, folder in layout:
        inside = path / name
        if inside.exists() and inside.is_dir() != folder:
            raise ValueError(f"out: {inside} should be a {'folder' if folder else 'file'}")
    claim(path, RUNNER_FILES[own], "out")
    return path

def check_file_labels(labels: Mapping[str, Iterable[str]]) -> None:
    """Refuse labels that cannot be part of file names.

    ``labels`` maps each argument to its labels (see :mod:`mri_theory.runners.sandbox`, "Labels").
    """
    for argument, names in labels.items():
        for name in names:
            label(name, argument)

def verified_files(files: Iterable[tuple[Any, Path]], read: Callable[[Path, Any], Any],
                    stacklevel: int) -> dict[Any, Any]:
    """``{key: read(path, key)}`` for the ``(key, path)`` pairs whose file exists and passes verification.

    ``read`` raises :class:`DamagedPart` with the reason for a file that
    fails; it is reported by a :class:`DamagedPartWarning` (``stacklevel``
    counted from this function) naming the file and the reason, and left out
    (its task is recomputed).  A folder or any other non-regular file (a FIFO,
    a socket) where a file belongs cannot be overwritten: a ValueError naming
    ``out`` and the path, before any work.
    """
    verified = {}
    for key, path in files:
        if not os.path.lexists(path):
            continue
        if os.path.exists(path) and not os.path.isfile(path):
            raise ValueError(f"out: {path} is a folder or another non-regular file where a stored result belongs; "
                             "remove it (or use another folder), then run again")
        try:
            verified[key] = read(path, key)
        except DamagedPart as reason:
            warnings.warn(DamagedPartWarning(f"damaged part {path}: {reason}; recomputing it"), stacklevel=stacklevel)
    return verified

def gather(results: Generator[tuple[Any, Any], None, None], frames: dict, total: int, desc: str, unit: str,
            progress: bool, write: Callable[[Any, Any], None] | None = None) -> None:
    """Put each ``(key, frame)`` of ``results`` into ``frames`` as it arrives, after ``write(key, frame)``.

    The writes happen here, in the calling process, so a kill never leaves a
    writer behind; a tqdm bar counts from the frames already there.  Closing
    ``results`` on the way out (an interrupted run) stops the remaining tasks.
    """
    bar = tqdm(total=total, initial=len(frames), desc=desc, unit=unit, disable=not progress)
    try:
        for key, frame in results:
            if write is not None:
                write(key, frame)
            frames[key] = frame
            bar.update()
    finally:
        results.close()
        bar.close()

def read_settings_json(file: Path, name: str, what: str, well_formed: Callable[[Any], bool]) -> dict[str, Any] | None:
    """The JSON settings file ``file`` (None if absent); a ValueError naming ``name`` unless ``well_formed``."""
    if not file.exists():
        return None
    try:
        stored = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        stored = exc
    if isinstance(stored, Exception) or not well_formed(stored):
        reason = f" ({stored})" if isinstance(stored, Exception) else ""
        raise ValueError(f"{name}: the {what} file {file} is unreadable or corrupt{reason}; delete it to reuse the "
                         "folder (the verified parts are kept), or use another folder")
    return stored

def check_path(path: Any, what: str, name: str = "path") -> Path:
    """``path`` as a Path; a TypeError or ValueError naming ``name`` unless it is a non-empty str or PathLike."""
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
        raise TypeError(f"{name} must be {what} path (str or os.PathLike), got {type(path).__name__}")
    if not os.fspath(path).strip():
        raise ValueError(f"{name} must name {what}, got an empty path")
    return Path(path)


# ------------------------------------------------------------------ timings (measurements, not results)

#: The measured columns of a ``timings.csv`` (the study's and a states folder's): CPU seconds of the computing
#: thread and wall seconds.
TIME_COLUMNS = ["cpu_s", "wall_s"]
#: The file name of a folder's timings.
TIMINGS_FILE = "timings.csv"


def read_timings_file(file: Path, columns: list[str], integers: list[str],
                      values: list[str] = TIME_COLUMNS) -> pd.DataFrame:
    """The rows of a per-task measurement file such as ``timings.csv``: ``columns`` are the keys (``integers`` the
    integer ones, the others text) then the measured ``values`` (default :data:`TIME_COLUMNS`; a value listed in
    ``integers`` too must be an integer); a ValueError saying why when the file is not such a table.

    Measurements differ from run to run and are never in ``checksums.json``; what is checked is their shape
    (columns, key types, one row per key, finite values ``>= 0``).
    """
    try:
        names = [c for c in columns if c not in values and c not in integers]
        frame = read_csv_exact(file, keep_default_na=False, dtype=dict.fromkeys(names, str))
    except (OSError, ValueError) as exc:
        raise ValueError(f"unreadable ({exc})") from None
    if list(frame.columns) != columns:
        raise ValueError(f"wrong columns {list(frame.columns)}, expected {columns}")
    measured = frame[values]
    if not (all(pd.api.types.is_integer_dtype(frame[c]) for c in integers)
            and all(pd.api.types.is_numeric_dtype(measured[c]) for c in measured)
            and np.all(np.isfinite(measured.to_numpy(dtype=float))) and np.all(measured.to_numpy(dtype=float) >= 0)):
        raise ValueError(f"{', '.join(integers)} must be integers and {', '.join(values)} finite numbers >= 0")
    if frame.duplicated([c for c in columns if c not in values]).any():
        raise ValueError("a task has more than one row")
    return frame


def read_folder_timings(path: Any, columns: list[str], integers: list[str]) -> pd.DataFrame:
    """The ``timings.csv`` of the folder ``path`` (:func:`read_timings_file`); a ValueError naming ``path`` when
    there is none or it is not such a table."""
    folder = check_path(path, "a folder")
    file = folder / TIMINGS_FILE
    if not file.is_file():
        raise ValueError(f"path: no {TIMINGS_FILE} in {folder}")
    try:
        return read_timings_file(file, columns, integers)
    except ValueError as exc:
        raise ValueError(f"path: {file}: {exc}") from None


def stored_timings(file: Path, columns: list[str], integers: list[str], stacklevel: int,
                   values: list[str] = TIME_COLUMNS) -> dict[tuple, tuple[float, ...]]:
    """The measured ``values`` already in ``file`` by key (:func:`read_timings_file`; none if absent; a
    RuntimeWarning and none if unreadable: the run then replaces the file with what the tasks it computes
    measure)."""
    if not file.exists():
        return {}
    try:
        frame = read_timings_file(file, columns, integers, values)
    except ValueError as exc:
        warnings.warn(f"{file}: {exc}; this run replaces it with what the tasks it computes measure", RuntimeWarning,
                      stacklevel=stacklevel)
        return {}
    keys = [c for c in columns if c not in values]
    return {tuple(int(v) if c in integers else v for c, v in zip(keys, row[:len(keys)], strict=True)):
            tuple(float(v) for v in row[len(keys):]) for row in frame[keys + values].itertuples(index=False)}


def timings_bytes(timings: Mapping[tuple, tuple[float, ...]], columns: list[str]) -> bytes:
    """``timings`` (key -> (cpu_s, wall_s)) as the CSV bytes of a ``timings.csv`` with ``columns``."""
    return csv_bytes(pd.DataFrame([(*key, cpu, wall) for key, (cpu, wall) in timings.items()], columns=columns))
