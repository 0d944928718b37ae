"""Reading CSV tables back exactly, on every pandas the project allows (the runners' stores, user data files)."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["read_csv_exact"]

#: Before pandas 3, ``read_csv``'s default float parser may come back an ulp off the shortest ``repr`` a float was
#: written with; ``float_precision="round_trip"`` reads it exactly. pandas 3 reads exactly by default and
#: deprecates the option.
_ROUND_TRIP: dict[str, Any] = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def read_csv_exact(source: Any, **kwargs: Any) -> pd.DataFrame:
    """``pandas.read_csv(source, **kwargs)`` reading every float back bit for bit as it was written (with
    pandas 2.3.3, 16 tests failed on stored values one ulp off)."""
    return pd.read_csv(source, **kwargs, **_ROUND_TRIP)
