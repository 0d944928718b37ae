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
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no folder locks
    fcntl = None

#: The settings file of a :func:`mri_theory.sandbox.run_curves` folder (a study's pairings are such folders).
CURVES_SETTINGS_FILE = "config.json"
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
def locked(folder: Path, name: str, create: bool = True) -> Iterator[Path]:
    """Hold the exclusive lock of the output folder ``folder`` (created if needed when ``create``).

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
        table = pd.read_csv(io.BytesIO(data))
    except ValueError as exc:  # pandas' parser and empty-data errors, bad encodings
        raise ValueError(f"{name}: {file} is not a readable CSV ({exc})") from None
    if list(table.columns) != columns:
        raise ValueError(f"{name}: {file} is not {what}: columns {list(table.columns)}, expected {columns}")
    return table
