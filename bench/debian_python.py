"""Debian's Python packages (python3-matplotlib, python3-scipy) from whatever
python3 runs a benchmark.

The first python3 on PATH may be another interpreter of Debian's minor
version (a pyenv or venv python), whose own site-packages lack Debian's
packages: then Debian's dist-packages is tried too. Imported only when
needed, so that the modules using it import on machines without them.
"""

import importlib
import sys

# Where Debian 12's python3-* packages live, and its python3's minor version
# (their compiled parts are built for it).
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"
DEBIAN_VERSION = (3, 11)


def import_module(name, package):
    """Module `name`; when this interpreter lacks it, retried from Debian's
    dist-packages if the minor versions match. ImportError naming the Debian
    `package` to install otherwise."""
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    if sys.version_info[:2] == DEBIAN_VERSION and DEBIAN_DIST_PACKAGES not in sys.path:
        sys.path.append(DEBIAN_DIST_PACKAGES)
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    raise ImportError(
        f"{name} is not importable by {sys.executable}: install {package} "
        "(bash tools/setup.sh --stage=bench) or run with Debian's /usr/bin/python3"
    ) from None
