r"""The iterated-AL sandbox of §5.2: paired Monte Carlo replicates of learning curves.

In each replicate every strategy starts from the same initial labelled set
(one point per class), the same pool and the same evaluation population
(exact posteriors, QMC), and labels pool points one at a time until the pool
is exhausted or the budget is reached.  After each label the learning curve
records the classifier's *true* loss on the population; at each step the
chosen candidate's true :math:`Q^c` and the best true :math:`Q^c` among the
candidates it was chosen from are recorded too (their difference is the
:math:`Q^c` shortfall, :func:`mri_theory.metrics.q_c_shortfall`; the paper's
regret is the gap to MRI-best's curve, :func:`mri_theory.metrics.regret`).

Problems, classifiers and strategies are given by registered name or as
objects (a :class:`~mri_theory.problems.Problem`, an unfitted
:class:`~mri_theory.classifiers.Classifier` template, a
:class:`~mri_theory.strategies.Strategy` instance), mixed freely.

Labels: a name given as a str labels its rows, part files and study folders
as it is (``"kknn5"``, whatever the object's own ``name``); an object is
labelled by its ``name``.  The labels of one run must be distinct (two
objects of one name are refused: set ``name``), and where they become part
of file names (the strategies' with ``out``, the problems' and classifiers'
in a study) they must be letters, digits and ``. _ + -`` without ``__``.
The registries (``register_strategy``, ``register_classifier``,
``register_problem``) are consulted in the calling process only: the tasks
carry the objects themselves to the workers (pickled by joblib or Dask), so a
class defined in a script or a test module works with ``n_jobs > 1`` too.
Every (strategy, replicate) pair starts from fresh copies of the classifier
and the strategy.

Problems without the truth (``has_truth`` False, e.g. real data): the
evaluation population of each replicate is the problem's held-out test set
(:meth:`~mri_theory.problems.Problem.draw_replicate`); the strategies that
need the truth and ``record_q_c=True`` are refused (the default
``record_q_c=None`` records the true :math:`Q^c` exactly where the truth
exists).

Seeds: replicate ``r`` draws its data (``problem.draw_replicate(pool_size,
population_size, rng)``) from ``SeedSequence(seed, spawn_key=(r, 0))``;
strategy ``s`` in replicate ``r`` draws from ``SeedSequence(seed, spawn_key=(r, 1, crc32(s)))``
(``crc32`` of the UTF-8 label), and the sub-sample of step ``t`` from ``SeedSequence(seed, spawn_key=(r, 2, t))``
(the same for every strategy).  So a (strategy, replicate) pair gives the same
result whichever other pairs run, in one process or many (``n_jobs``), and an
interrupted run resumes pair by pair; an object equal to a registered
strategy under the same label gives the same rows as its name.

Output folder (``out``):

``config.json``
    the :class:`CurveConfig` (with the ``repr`` of the problem and the
    classifier); a run with other settings in the same folder is refused, a
    different problem or classifier object of the same name included.
``parts/{strategy}__{replicate:05d}.csv``
    one finished (strategy, replicate) pair: a first line
    ``# mri-theory part {json}`` followed by the CSV body (columns
    :data:`RESULT_COLUMNS`).  The JSON object has the keys ``format`` (1),
    ``strategy`` (the label), ``strategy_spec`` (the strategy's ``repr``:
    its parameters), ``replicate``, ``config_sha256`` (SHA-256 of the canonical
    configuration JSON: ``json.dumps(config, sort_keys=True, separators=(",", ":"))``
    in UTF-8), ``rows`` (data rows) and ``sha256`` (of the body's bytes).
    The study (:mod:`mri_theory.study`) stores its tasks in this format, and
    the diagnostics (:mod:`mri_theory.diagnostics.states`) too, with their own
    key fields in place of ``strategy`` and ``replicate``.
``curves.csv``
    the whole table, rebuilt from the verified parts at the end of every run.
``checksums.json``
    the SHA-256 of ``curves.csv`` and of ``config.json`` when it was written
    (:mod:`mri_theory._storage`); :func:`read_curves` refuses a table that
    does not match (edited, cut, left by an unfinished run), naming it.
``.lock``
    the folder's lock: a run holds an exclusive OS file lock on it
    (``fcntl.flock``, released when the process ends) from before it writes
    ``config.json`` to its last file, so one process writes a folder at a
    time; a second run is refused with a ``ValueError`` naming the pid the
    file holds.

Every file is written to a fresh temporary file in the same folder (mode
``0o666`` minus the umask) and renamed over its name, so a kill never leaves a
partial file; an ``OSError`` while writing (a full disk) names the file. Only
the calling process writes: with ``n_jobs != 1`` the joblib workers compute
and return a pair's table and the parent writes its part as it arrives, so a
killed run leaves no writer behind.

On resume a part counts as finished only if it passes every check: it is
readable, its first line is a part header naming this pair (the strategy's
spec included: the part of a differently parameterised strategy of the same
name is recomputed) and this configuration, the body matches the header's
SHA-256 and row count (``budget + 1``), the columns are :data:`RESULT_COLUMNS` with integer
``replicate``, ``n_labelled`` and ``chosen``, every row names this problem,
classifier, strategy and replicate, ``n_labelled`` runs ``k, k + 1, ...,
k + budget`` from the initial size ``k`` (one point per class), ``chosen``
holds distinct pool indices followed by ``-1`` and the losses are finite.
Any other part is reported by a :class:`DamagedPartWarning` naming the file and
the reason, and recomputed (overwritten).  A folder (or a FIFO, a socket) in
place of a part cannot be overwritten: it is refused with a ``ValueError``
naming it, before any work.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from mri_theory import _backends, _limits, _storage
from mri_theory import _validation as check
from mri_theory._backends import DEFAULT, Default, Execution
from mri_theory._registry import label
from mri_theory.classifiers import Classifier, get_classifier
from mri_theory.problems import Problem, get_problem, initial_labelled_set
from mri_theory.strategies import (
    Context,
    MRIBest,
    Strategy,
    get_strategy,
    list_strategies,
    select,
)
from mri_theory.targets import true_q_c_and_loss

__all__ = ["RESULT_COLUMNS", "CurveConfig", "DamagedPartWarning", "Execution", "initial_labelled_set",
           "read_curves", "run_curves"]

#: Columns of the tidy results.
RESULT_COLUMNS = ["problem", "classifier", "strategy", "replicate", "n_labelled", "loss",
                  "chosen", "q_c_chosen", "q_c_best"]

_RESULTS_FILE = "curves.csv"
_CONFIG_FILE = _storage.CURVES_SETTINGS_FILE
_PARTS_DIR = "parts"
#: First bytes of a part file; the part header's JSON follows on the same line.
_PART_MAGIC = b"# mri-theory part "
_PART_FORMAT = 1
_PART_FIELDS = {"format", "config_sha256", "rows", "sha256"}  #: besides the part's key


class DamagedPartWarning(UserWarning):
    """A part file in ``out/parts`` failed verification on resume; it is recomputed and overwritten."""


@dataclass(frozen=True)
class CurveConfig:
    """Everything that determines the results of a study (written to ``config.json``).

    ``problem`` and ``classifier`` are the labels (the registered name given,
    or the object's ``name``); ``problem_spec`` and ``classifier_spec`` the
    ``repr`` of the objects they stand for, so that a folder of one problem
    or classifier refuses another of the same name.
    """

    problem: str
    classifier: str
    pool_size: int
    budget: int
    population_size: int
    loss: str
    subsample: int | None
    record_q_c: bool
    seed: int
    problem_spec: str
    classifier_spec: str


@dataclass(frozen=True)
class _Run:
    """A :class:`CurveConfig` with the objects its labels stand for: what a task carries to the workers.

    ``strategies`` maps each strategy label to its object.  The workers get
    the objects pickled and never consult a registry (which lives in the
    calling process).
    """

    config: CurveConfig
    problem: Problem
    classifier: Classifier
    strategies: Mapping[str, Strategy]

    def strategy_spec(self, label: str) -> str:
        """The ``repr`` of the strategy labelled ``label`` (its parameters), recorded in its parts."""
        return repr(self.strategies[label])


def _replicate_data(problem: Problem, cfg: CurveConfig, replicate: int) -> tuple:
    """``problem.draw_replicate`` from replicate ``replicate``'s data stream: ``(X0, y0, pool_X, pool_y, population)``."""
    rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(replicate, 0)))
    return problem.draw_replicate(cfg.pool_size, cfg.population_size, rng)


def _run_pair(run: _Run, label: str, replicate: int, data: tuple | None = None,
              losses: bool = True) -> pd.DataFrame:
    """The learning curve of the strategy labelled ``label`` in one replicate.

    ``data`` is the replicate's :func:`_replicate_data`, if already drawn.
    ``losses=False`` replays the choices only: the ``loss`` column is NaN
    (the choices never depend on it), unless ``record_q_c`` computes it anyway.
    """
    cfg, problem = run.config, run.problem
    X, y, pool_X, pool_y, population = _replicate_data(problem, cfg, replicate) if data is None else data
    base = copy.deepcopy(run.classifier)  # fresh objects for every pair, as a worker gets them
    strategy = copy.deepcopy(run.strategies[label])
    rng = np.random.default_rng(np.random.SeedSequence(
        cfg.seed, spawn_key=(replicate, 1, zlib.crc32(label.encode()))))
    available = np.arange(cfg.pool_size)
    rows = []
    oracle = isinstance(strategy, MRIBest)
    for step in range(cfg.budget + 1):
        done = step == cfg.budget or available.size == 0
        scored = available
        if not done and strategy.costly and cfg.subsample is not None and available.size > cfg.subsample:
            sub_rng = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(replicate, 2, step)))
            scored = np.sort(sub_rng.choice(available, cfg.subsample, replace=False))
        if not done and cfg.record_q_c and not oracle:  # the engine gives the current loss too
            loss_now, q = true_q_c_and_loss(problem, base, X, y, pool_X[scored], population, cfg.loss)
        elif losses:
            loss_now = population.loss(base.clone().fit(X, y, problem.n_classes), cfg.loss)
        else:
            loss_now = np.nan
        row = {"n_labelled": len(y), "loss": loss_now, "chosen": -1, "q_c_chosen": np.nan, "q_c_best": np.nan}
        rows.append(row)
        if done:
            break
        truth = (problem, population) if strategy.needs_truth else (None, None)  # practical ones never see it
        ctx = Context(X, y, pool_X[scored], pool_X[available], base, problem.n_classes, rng, *truth)
        i, scores = select(strategy, ctx)
        if cfg.record_q_c:
            if oracle:
                q = strategy.sign * scores
            row.update(q_c_chosen=float(q[i]), q_c_best=float(q.max()))
        pick = scored[i]
        row["chosen"] = int(pick)
        X, y = np.vstack([X, pool_X[pick]]), np.append(y, pool_y[pick])
        available = available[available != pick]
    out = pd.DataFrame(rows)
    out.insert(0, "replicate", replicate)
    out.insert(0, "strategy", label)
    out.insert(0, "classifier", cfg.classifier)
    out.insert(0, "problem", cfg.problem)
    return out[RESULT_COLUMNS]


def _config_text(cfg: CurveConfig) -> str:
    return json.dumps(asdict(cfg), indent=2, sort_keys=True)


def _canonical_sha256(settings: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``settings`` (sorted keys, no spaces, UTF-8)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _config_sha256(cfg: CurveConfig) -> str:
    """SHA-256 of the canonical configuration JSON (sorted keys, no spaces, UTF-8)."""
    return _canonical_sha256(asdict(cfg))


def _part_path(out: Path, strategy: str, replicate: int) -> Path:
    return out / _PARTS_DIR / f"{strategy}__{replicate:05d}.csv"


def _part_key(run: _Run, strategy: str, replicate: int) -> dict[str, Any]:
    """The header key of a pair's part: its strategy's label, the replicate and the strategy's spec."""
    return {"strategy": strategy, "replicate": int(replicate), "strategy_spec": run.strategy_spec(strategy)}


def _write_keyed_part(frame: pd.DataFrame, path: Path, key: Mapping[str, Any], config_sha256: str) -> None:
    """A table as a verifiable part file at ``path``: the header line, then the CSV body.

    The header is ``# mri-theory part {json}`` with the JSON object ``key``
    (what the part holds, e.g. strategy and replicate) plus ``format``,
    ``config_sha256`` (of the settings that determine its rows), ``rows``
    and ``sha256`` (of the body's bytes); the runners of the sandbox, the
    study and the diagnostics share this format (module docstring).
    """
    body = _storage.csv_bytes(frame)
    header = {**key, "format": _PART_FORMAT, "config_sha256": config_sha256, "rows": len(frame),
              "sha256": hashlib.sha256(body).hexdigest()}
    _storage.write_atomic(_PART_MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + body, path)


def _write_part(frame: pd.DataFrame, out: Path, run: _Run, strategy: str, replicate: int) -> None:
    """One pair's table as a verifiable part (module docstring)."""
    _write_keyed_part(frame, _part_path(out, strategy, replicate), _part_key(run, strategy, replicate),
                      _config_sha256(run.config))


class _DamagedPart(Exception):
    """Why a part file cannot be trusted (internal; reported as a :class:`DamagedPartWarning`)."""


def _read_keyed_part(path: Path, key: Mapping[str, Any], config_sha256: str, rows: int,
                     what: str = "part") -> pd.DataFrame:
    """The CSV body of a part written by :func:`_write_keyed_part`, after the checks every part shares.

    The header must hold exactly ``key``'s fields (with these values, else
    "wrong ``what``"), ``config_sha256`` and ``rows``; the body must match the
    header's checksum and parse as CSV with ``rows`` rows.  Raises
    :class:`_DamagedPart` with the reason; the caller checks the content.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _DamagedPart(f"unreadable ({exc.strerror or exc})") from None
    if not data:
        raise _DamagedPart("empty file")
    first, newline, body = data.partition(b"\n")
    if not newline or not first.startswith(_PART_MAGIC):
        raise _DamagedPart(f"bad header: the first line is not {_PART_MAGIC.decode().strip()!r} and its JSON")
    try:
        header = json.loads(first[len(_PART_MAGIC):])
    except ValueError:
        raise _DamagedPart("bad header: unreadable JSON") from None
    fields = _PART_FIELDS | set(key)
    if not isinstance(header, dict) or set(header) != fields:
        raise _DamagedPart(f"bad header: expected the keys {sorted(fields)}")
    if header["format"] != _PART_FORMAT:
        raise _DamagedPart(f"unknown part format {header['format']!r}")
    held = tuple(header[name] for name in key)
    if held != tuple(key.values()):
        raise _DamagedPart(f"wrong {what}: it holds ({', '.join(map(repr, held))}), "
                           f"not ({', '.join(map(repr, key.values()))})")
    if header["config_sha256"] != config_sha256:
        raise _DamagedPart("written for a different configuration (config hash differs)")
    if header["rows"] != rows:
        raise _DamagedPart(f"wrong row count: the header gives {header['rows']!r} rows, the configuration {rows}")
    if hashlib.sha256(body).hexdigest() != header["sha256"]:
        raise _DamagedPart("checksum mismatch: the data were cut or changed")
    try:
        frame = pd.read_csv(io.BytesIO(body))
    except ValueError as exc:  # pandas' parser and empty-data errors, bad encodings
        raise _DamagedPart(f"unreadable CSV body ({exc})") from None
    if len(frame) != rows:
        raise _DamagedPart(f"wrong row count: {len(frame)} rows, expected {rows}")
    return frame


def _read_part(path: Path, run: _Run, strategy: str, replicate: int) -> pd.DataFrame:
    """A verified part's table; raises :class:`_DamagedPart` with the reason when any check fails."""
    cfg = run.config
    rows = cfg.budget + 1
    frame = _read_keyed_part(path, _part_key(run, strategy, replicate), _config_sha256(cfg), rows, "pair")
    if list(frame.columns) != RESULT_COLUMNS:
        raise _DamagedPart(f"wrong columns {list(frame.columns)}, expected {RESULT_COLUMNS}")
    integer = ["replicate", "n_labelled", "chosen"]
    numeric = ["loss", "q_c_chosen", "q_c_best"]
    if not (all(pd.api.types.is_integer_dtype(frame[c]) for c in integer)
            and all(pd.api.types.is_float_dtype(frame[c]) for c in numeric)):
        raise _DamagedPart(f"wrong column types: {integer} must be integers and {numeric} numbers")
    if not ((frame.problem == cfg.problem) & (frame.classifier == cfg.classifier) & (frame.strategy == strategy)
            & (frame.replicate == replicate)).all():
        raise _DamagedPart(f"rows not matching the pair: not every row names {cfg.problem}, {cfg.classifier}, "
                           f"{strategy}, replicate {replicate}")
    start = run.problem.n_classes
    if not np.array_equal(frame.n_labelled.to_numpy(), start + np.arange(rows)):
        raise _DamagedPart(f"n_labelled does not run {start}, {start + 1}, ..., {start + rows - 1}")
    picks, last = frame.chosen.to_numpy()[:-1], frame.chosen.iloc[-1]
    if last != -1 or np.unique(picks).size != picks.size or np.any((picks < 0) | (picks >= cfg.pool_size)):
        raise _DamagedPart("chosen is not distinct pool indices followed by -1")
    if not np.all(np.isfinite(frame.loss.to_numpy())):
        raise _DamagedPart("non-finite loss")
    return frame


#: The settings file that marks a results folder of each runner (sandbox, study, diagnostics).
_RUNNER_FILES = {_CONFIG_FILE: "run_curves", "study.json": "run_study", "diagnostics.json": "score_states"}


def _check_out(out: Any, layout: Sequence[tuple[str, bool]] | None = None, own: str = _CONFIG_FILE) -> Path | None:
    """``out`` as a Path, or None; raises unless it is (or can become) a writable results folder.

    ``layout``: the (name, is a folder) entries the folder may hold (default:
    the sandbox's ``parts/``, ``config.json`` and ``curves.csv``); an entry of
    the wrong kind is refused, and so is a folder in place of the lock or the
    checksum file (:mod:`mri_theory._storage`).  ``own``: the caller's settings file
    (:data:`_RUNNER_FILES`); a folder marked by another runner's is refused.
    """
    if out is None:
        return None
    path = check.output_folder(out, "out")
    if layout is None:
        layout = ((_PARTS_DIR, True), (_CONFIG_FILE, False), (_RESULTS_FILE, False))
    layout = (*layout, (_storage.LOCK_FILE, False), (_storage.CHECKSUMS_FILE, False))
    for name, folder in layout:
        inside = path / name
        if inside.exists() and inside.is_dir() != folder:
            raise ValueError(f"out: {inside} should be a {'folder' if folder else 'file'}")
    for marker, runner in _RUNNER_FILES.items():
        if marker != own and (path / marker).exists():
            raise ValueError(f"out: {path} holds results of {runner} ({marker}), not of {_RUNNER_FILES[own]}; "
                             "use another folder")
    return path


def _check_config(out: Path, cfg: CurveConfig) -> None:
    """Raise unless ``out/config.json`` is absent or holds ``cfg`` (reads only, writes nothing)."""
    config = out / _CONFIG_FILE
    stored = _read_settings_json(config, "out", "configuration", lambda value: isinstance(value, dict))
    if stored is not None and stored != json.loads(_config_text(cfg)):
        raise ValueError(f"out: {out} holds results of a different study ({config}); use another folder")


def _prepare_output(out: Path, cfg: CurveConfig) -> None:
    """Check ``out/config.json`` against ``cfg`` (or write it) and create ``out/parts``; nothing is
    created when the folder holds another study or an unreadable configuration.  Called by the holder of
    the folder's lock (:func:`mri_theory._storage.locked`) only."""
    _check_config(out, cfg)
    config = out / _CONFIG_FILE
    text = _config_text(cfg)
    try:
        (out / _PARTS_DIR).mkdir(parents=True, exist_ok=True)
        if not config.exists():
            _storage.write_atomic(text.encode(), config)
    except OSError as exc:
        raise ValueError(f"out: cannot write to {out} ({exc})") from None


#: What :func:`_resolve` accepts per kind: the object class and the registry's getter.
_KINDS: dict[str, tuple[type, Callable[[str], Any]]] = {
    "problem": (Problem, get_problem),
    "classifier": (Classifier, get_classifier),
    "strategy": (Strategy, get_strategy),
}


def _resolve(value: Any, argument: str, kind: str) -> tuple[str, Any]:
    """``(label, object)`` of a registered name or an object of ``kind`` (module docstring, "Labels").

    A name is its own label and its object comes from the registry, here in
    the calling process; an object is labelled by its ``name``.
    """
    cls, get = _KINDS[kind]
    if isinstance(value, str):
        try:
            return value, get(value)
        except ValueError as exc:
            raise ValueError(f"{argument}: {exc}") from None
    if not isinstance(value, cls):
        raise TypeError(f"{argument} must be a {kind} name (str) or a {cls.__name__} object, "
                        f"got {type(value).__name__}")
    if not isinstance(value.name, str) or not value.name:
        raise TypeError(f"{argument}: a {cls.__name__} object needs a name (a non-empty str), got {value.name!r}")
    return value.name, value


def _spec(obj: Any, argument: str) -> str:
    """The ``repr`` of ``obj`` (its parameters: the spec recorded for resume); a TypeError naming ``argument``
    when the repr cannot show them."""
    try:
        return repr(obj)
    except AttributeError as exc:
        raise TypeError(f"{argument}: {exc}") from None


def _distinct(labels: Sequence[str], argument: str) -> None:
    """A ValueError naming ``argument`` unless the labels are distinct."""
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"{argument} must not repeat a name, got {', '.join(repeated)} more than once "
                         "(objects are labelled by their name: give each its own)")


def _for_loss(strategy: Strategy, loss: str) -> Strategy:
    """``strategy``, or for an oracle of another loss a copy maximising the run's ``loss`` (§5.2)."""
    if isinstance(strategy, MRIBest) and strategy.loss != loss:
        strategy = copy.copy(strategy)
        strategy.loss = loss
    return strategy


def _strategy_objects(strategies: Any, loss: str, argument: str = "strategies") -> dict[str, Strategy]:
    """``{label: strategy}`` of ``strategies``: "all", a name, a :class:`Strategy`, or a sequence of names and
    strategies, with distinct labels (the oracles set to the run's ``loss``, :func:`_for_loss`)."""
    if isinstance(strategies, str) and strategies == "all":
        items = list_strategies()
    elif isinstance(strategies, (str, Strategy)):
        items = [strategies]
    elif isinstance(strategies, Iterable):
        items = list(strategies)
    else:
        raise TypeError(f"{argument} must be 'all', a strategy name or Strategy object, or a sequence of them; "
                        f"got {type(strategies).__name__}")
    if not items:
        raise ValueError(f"{argument} must name at least one strategy")
    resolved = []
    for item in items:
        if not isinstance(item, (str, Strategy)):
            raise TypeError(f"{argument} must hold strategy names (str) or Strategy objects, got {item!r}")
        resolved.append(_resolve(item, argument, "strategy"))
    _distinct([label for label, _ in resolved], argument)
    objects = {label: _for_loss(obj, loss) for label, obj in resolved}
    for obj in objects.values():
        _spec(obj, argument)
    return objects


def _curve_config(problem: tuple[str, Problem], classifier: tuple[str, Classifier], pool_size: Any, budget: Any,
                  population_size: Any, loss: Any, subsample: Any, record_q_c: Any, seed: Any) -> CurveConfig:
    """The validated :class:`CurveConfig` of :func:`run_curves`' arguments (``budget=None``: the whole pool;
    ``record_q_c=None``: where the problem has the truth); ``problem`` and ``classifier`` as :func:`_resolve`
    gives them.  The sizes are bounded (:mod:`mri_theory._limits`), and a pool larger than a real-data
    problem's ``max_pool_size`` is refused."""
    (problem_label, problem_obj), (classifier_label, classifier_obj) = problem, classifier
    if loss not in ("error", "log"):
        raise ValueError(f"loss must be 'error' or 'log', got {loss!r}")
    pool_size = _limits.size(pool_size, "pool_size", _limits.MAX_POOL_SIZE)
    if pool_size < problem_obj.n_classes:
        raise ValueError(f"pool_size must be at least the initial set size {problem_obj.n_classes}, got {pool_size}")
    largest = getattr(problem_obj, "max_pool_size", None)  # real data: the rows outside the test and initial sets
    if largest is not None and pool_size > largest:
        raise ValueError(f"pool_size must be at most {largest} for problem {problem_label!r} (max_pool_size: the "
                         f"rows outside its test set and initial set), got {pool_size}")
    budget = pool_size if budget is None else check.count(budget, "budget")
    if budget > pool_size:
        raise ValueError(f"budget ({budget}) must not exceed pool_size ({pool_size}): the pool is smaller than requested")
    record_q_c = problem_obj.has_truth if record_q_c is None else check.flag(record_q_c, "record_q_c")
    return CurveConfig(problem_label, classifier_label, pool_size, budget,
                       _limits.size(population_size, "population_size", _limits.MAX_POPULATION_SIZE), loss,
                       None if subsample is None else check.count(subsample, "subsample"),
                       record_q_c, check.count(seed, "seed", minimum=0),
                       _spec(problem_obj, "problem"), _spec(classifier_obj, "classifier"))


def _check_truth(run: _Run) -> None:
    """Refuse what needs the truth (§5.2) on a problem without it (``has_truth`` False, e.g. real data)."""
    if run.problem.has_truth:
        return
    oracles = [label for label, strategy in run.strategies.items() if strategy.needs_truth]
    where = f"problem {run.config.problem!r} has no truth (has_truth is False: real data)"
    if oracles:
        raise ValueError(f"strategies: {', '.join(oracles)} need the truth (needs_truth), but {where}")
    if run.config.record_q_c:
        raise ValueError(f"record_q_c must be False: the true Q^c cannot be recorded, {where}")


def _check_file_labels(labels: Mapping[str, Iterable[str]]) -> None:
    """Refuse labels that cannot be part of file names (``{argument: labels}``; module docstring, "Labels")."""
    for argument, names in labels.items():
        for name in names:
            label(name, argument)


def _verified_files(files: Iterable[tuple[Any, Path]], read: Callable[[Path, Any], Any],
                    stacklevel: int) -> dict[Any, Any]:
    """``{key: read(path, key)}`` for the ``(key, path)`` pairs whose file exists and passes verification.

    ``read`` raises :class:`_DamagedPart` with the reason for a file that
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
        except _DamagedPart as reason:
            warnings.warn(DamagedPartWarning(f"damaged part {path}: {reason}; recomputing it"), stacklevel=stacklevel)
    return verified


def _verified_parts(out: Path, run: _Run, pairs: Iterable[tuple[str, int]],
                    stacklevel: int) -> dict[tuple[str, int], pd.DataFrame]:
    """The tables of the ``pairs`` whose part in ``out/parts`` passes verification (:func:`_verified_files`)."""
    return _verified_files(((pair, _part_path(out, *pair)) for pair in pairs),
                           lambda path, pair: _read_part(path, run, *pair), stacklevel + 1)


def _computed_pair(run: _Run, strategy: str, replicate: int) -> tuple[tuple[str, int], pd.DataFrame]:
    """What a (possibly parallel) job does: compute one pair and return it with its key; never write."""
    return (strategy, replicate), _run_pair(run, strategy, replicate)


def _gather(results: Iterator[tuple[Any, Any]], frames: dict, total: int, desc: str, unit: str,
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


def _read_settings_json(file: Path, name: str, what: str, well_formed: Callable[[Any], bool]) -> dict[str, Any] | None:
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


def run_curves(
    problem: str | Problem = "four-gaussian",
    classifier: str | Classifier = "knn5",
    strategies: Sequence[str | Strategy] | str | Strategy = "all",
    pool_size: int = 250,
    replicates: int = 10,
    seed: int = 0,
    n_jobs: int | Default = DEFAULT,
    budget: int | None = None,
    population_size: int = 10_000,
    loss: str = "error",
    subsample: int | None = 100,
    record_q_c: bool | None = None,
    out: str | os.PathLike | None = None,
    progress: bool | Default = DEFAULT,
    *,
    backend: str | Default = DEFAULT,
    scheduler: str | None | Default = DEFAULT,
    execution: Execution | None = None,
) -> pd.DataFrame:
    r"""Learning curves of AL strategies on a problem (§5.2), paired over replicates.

    Every (strategy, replicate) pair is one task; the tasks carry the objects
    to the workers (module docstring, "Labels").

    Parameters
    ----------
    problem : str or Problem
        A name from :func:`mri_theory.problems.list_problems` (labelled by the
        name) or a :class:`~mri_theory.problems.Problem` (labelled by its
        ``name``).  Without the truth (``has_truth`` False, real data) the
        losses are measured on each replicate's held-out test set and the
        oracles and ``record_q_c=True`` are refused.
    classifier : str or Classifier
        A name from :func:`mri_theory.classifiers.list_classifiers` (``knn5``,
        ``lda``, ``qda``, ``nb``, ``logreg``, ``svm``, ``rf``, ...) or an
        unfitted :class:`~mri_theory.classifiers.Classifier` template (cloned
        for every fit; labelled by its ``name``).
    strategies : "all", a name, a Strategy, or a sequence of names and Strategy objects
        Names from :func:`mri_theory.strategies.list_strategies` (``"all"``:
        every registered one) and :class:`~mri_theory.strategies.Strategy`
        instances, mixed, with distinct labels (an object's label is its
        ``name``; with ``out`` a label must be letters, digits and
        ``. _ + -`` without ``__``).  The seeds follow the labels, so
        ``SimpleMRI()`` gives exactly the rows of ``"SMRI"``.  Only the
        oracles (``needs_truth``) are given the problem and the evaluation
        population; the practical strategies never see them.  An oracle
        maximises the run's ``loss``, whatever its own ``loss``.
    pool_size : int
        Unlabelled pool drawn per replicate (at most 100 000, and at most
        the problem's ``max_pool_size`` for real data).
    replicates : int
        Monte Carlo replicates (paired: all strategies share each replicate's
        data; at most 100 000).
    seed : int
    n_jobs : int, optional
        Parallel (strategy, replicate) jobs (joblib, or the Dask
        ``LocalCluster``): a positive count (at most 256), or -1 for all cores
        (joblib's other negative values are refused); default 1.  Results are
        identical to a serial run; the workers only compute, this process
        writes the files.
    budget : int, optional
        Labels to acquire (default: exhaust the pool).
    population_size : int
        Evaluation population (QMC, exact posteriors; at most 1 000 000).
    loss : {"error", "log"}
        The learning-curve loss and the oracles' target.
    subsample : int or None, default 100
        Costly strategies (EfeLc, SMRI, BMRI, MRI-best, MRI-worst) score a
        random sub-sample of this many pool points per step, drawn with a
        seed shared by all strategies at that step of the replicate (so they
        score the same sub-sample while their remaining pools coincide, e.g.
        at the first step); ``None`` scores the whole pool.  The recorded true :math:`Q^c` of the chosen
        and of the best candidate refer to the candidates the strategy scored.
    record_q_c : bool, optional
        Record the true :math:`Q^c` of the chosen and best candidates (costs one
        :func:`~mri_theory.targets.true_q_c` per step for non-oracle strategies).
        The default ``None`` records it where the truth exists (``has_truth``):
        on every problem with the truth, never on real data, where an explicit
        ``True`` is refused.
    out : path, optional
        Folder for the results (created if needed; it must not be a file and
        must be writable): each finished (strategy, replicate) is written
        atomically to ``parts/`` as a verifiable part (module docstring), the
        whole table to ``curves.csv``.  Rerunning with the same folder and
        settings resumes, skipping the pairs whose part passes verification.
        ``config.json`` records the ``repr`` of the problem and the
        classifier: another object of the same name is refused (``out``),
        while a strategy whose ``repr`` (parameters) changed under the same
        label has its parts recomputed, with a :class:`DamagedPartWarning`.
        One process writes a folder at a time: the run holds the folder's
        lock (``.lock``, an OS file lock released when the process ends) and
        writes ``config.json`` only while holding it; a second run on the
        same folder is refused, naming the pid of the first.  ``curves.csv``
        is listed with its SHA-256 in ``checksums.json``
        (:func:`read_curves` verifies it).
    progress : bool, optional
        Show a tqdm progress bar (default True).
    backend : {"local", "dask"}, optional
        Where the tasks run (:class:`Execution`; default ``"local"``).
    scheduler : str, optional
        ``backend="dask"`` only: a running scheduler's address; ``None``
        starts a ``LocalCluster`` of ``n_jobs`` workers.
    execution : Execution, optional
        ``backend``, ``scheduler``, ``n_jobs`` and ``progress`` in one object;
        a keyword given beside it must agree with it (a ``ValueError`` naming
        both otherwise).

    Returns
    -------
    pandas.DataFrame
        Tidy, columns :data:`RESULT_COLUMNS`, sorted by strategy (in the given
        order), replicate and ``n_labelled``.

    Raises
    ------
    ValueError, TypeError
        For bad arguments, naming the argument, before any work is done or
        any file or folder is created (unknown names, repeated labels,
        oracles or ``record_q_c=True`` without the truth, labels unfit for
        file names with ``out``, sizes beyond the bounds above); ``ValueError``
        naming ``out`` when the folder holds another study (another problem
        or classifier of the same name included) or an unreadable
        ``config.json``, when another process is writing it (its pid named),
        or when a folder stands where a part file belongs; ``ValueError``
        naming ``execution`` and the keyword that disagrees with it.
    OSError
        When a file cannot be written (a full disk, ...), naming the file, or
        the ``scheduler`` cannot be reached.
    ImportError
        ``backend="dask"`` without the ``dask`` extra installed.

    Warns
    -----
    DamagedPartWarning
        For each part in ``out/parts`` that fails verification (named, with
        the reason; a part of a differently parameterised strategy of the
        same label included); the pair is recomputed and its part overwritten.
    """
    problem, classifier = _resolve(problem, "problem", "problem"), _resolve(classifier, "classifier", "classifier")
    cfg = _curve_config(problem, classifier, pool_size, budget, population_size, loss, subsample, record_q_c, seed)
    run = _Run(cfg, problem[1], classifier[1], _strategy_objects(strategies, cfg.loss))
    _check_truth(run)
    replicates = _limits.size(replicates, "replicates", _limits.MAX_REPLICATES)
    execution = _backends.resolve_execution(execution, backend=backend, scheduler=scheduler, n_jobs=n_jobs,
                                            progress=progress)
    out_path = _check_out(out)
    pairs = [(s, r) for s in run.strategies for r in range(replicates)]
    if out_path is None:
        return _run_table(run, pairs, execution, None)
    _check_file_labels({"strategies": run.strategies})
    _check_config(out_path, cfg)  # before the folder or its lock file is created
    with _storage.locked(out_path, "out"):
        return _run_table(run, pairs, execution, out_path)


def _run_table(run: _Run, pairs: list[tuple[str, int]], execution: Execution, out_path: Path | None) -> pd.DataFrame:
    """The table of :func:`run_curves` once every argument passed; with ``out_path`` (whose lock this process
    holds) the configuration is checked again and written, the verified parts reused, the rest computed and
    written as they arrive, then the table with its checksum."""
    frames: dict[tuple[str, int], pd.DataFrame] = {}
    if out_path is not None:
        _prepare_output(out_path, run.config)
        frames = _verified_parts(out_path, run, pairs, stacklevel=4)
    todo = [(run, s, r) for s, r in pairs if (s, r) not in frames]
    results = _backends.results(_computed_pair, todo, execution)
    write = None if out_path is None else (lambda pair, frame: _write_part(frame, out_path, run, *pair))
    _gather(results, frames, len(pairs), "curves", "run", execution.progress, write)
    table = pd.concat([frames[pair] for pair in pairs], ignore_index=True)
    if out_path is not None:
        _storage.write_tables(out_path, {_RESULTS_FILE: _storage.csv_bytes(table)}, _CONFIG_FILE)
    return table


def _check_path(path: Any, what: str) -> Path:
    """``path`` as a Path; a TypeError or ValueError naming ``path`` unless it is a non-empty str or PathLike."""
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
        raise TypeError(f"path must be {what} path (str or os.PathLike), got {type(path).__name__}")
    if not os.fspath(path).strip():
        raise ValueError(f"path must name {what}, got an empty path")
    return Path(path)


def read_curves(path: str | os.PathLike) -> pd.DataFrame:
    """Results written by :func:`run_curves`.

    Parameters
    ----------
    path : path
        A ``curves.csv`` file or the ``out`` folder holding one.

    Returns
    -------
    pandas.DataFrame
        The table, columns :data:`RESULT_COLUMNS`.

    Raises
    ------
    ValueError
        Naming ``path`` when there is no such file; when the table does not
        match the checksum recorded beside it in ``checksums.json`` (edited,
        cut or replaced, or no checksum: an unfinished run, a folder of an
        older version; rerunning the same command rebuilds it from the
        verified parts) or the folder is being written by another process
        (its pid named); or when it is not a CSV with the columns
        :data:`RESULT_COLUMNS`.
    """
    path = _check_path(path, "a file or folder")
    if path.is_dir():
        path = path / _RESULTS_FILE
    if not path.is_file():
        raise ValueError(f"path: no results at {path}")
    return _storage.verified_csv(path, "path", RESULT_COLUMNS, "a results table of run_curves")
