"""Where ``snapshot report`` writes when not told: the user's data folder, never a checkout.

A clone of snapshot commits its own ``reports/``; the quick start run from the
clone must not overwrite those files (and break the README's consistency
test). So without ``--out`` the report goes under the user's data folder
(``$XDG_DATA_HOME``, else ``~/.local/share``), whatever the current folder.

>>> str(default_report_folder({"XDG_DATA_HOME": "/data"}, home=Path("/home/me")))
'/data/snapshot/report'
>>> str(default_report_folder({}, home=Path("/home/me")))
'/home/me/.local/share/snapshot/report'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def default_report_folder(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The folder ``snapshot report`` writes to without ``--out``.

    Parameters
    ----------
    env : mapping, optional
        The environment (default ``os.environ``); a relative ``XDG_DATA_HOME``
        is ignored, as the XDG specification says.
    home : Path, optional
        The home folder (default ``Path.home()``).

    Returns
    -------
    Path
        ``$XDG_DATA_HOME/snapshot/report`` or ``~/.local/share/snapshot/report``.
    """
    env = os.environ if env is None else env
    data = env.get("XDG_DATA_HOME", "")
    base = (
        Path(data) if data and os.path.isabs(data) else (home or Path.home()) / ".local" / "share"
    )
    return base / "snapshot" / "report"
