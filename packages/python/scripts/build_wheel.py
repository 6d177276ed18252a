#!/usr/bin/env python3
"""Builds the package's wheel with the standard library alone (zipfile), offline.

    python3 packages/python/scripts/build_wheel.py [-w <dir>]

The usual build is `python3 -m pip wheel packages/python --no-deps --no-build-isolation -w <dir>`
(setuptools, as pyproject.toml declares); with a setuptools older than 70.1 that needs the
`wheel` package as well. Where neither is at hand this writes the same pure-Python wheel
(`media_gateway-<version>-py3-none-any.whl`): the package's files, METADATA from pyproject.toml,
WHEEL and RECORD as the wheel format (PEP 427) asks.
"""

import argparse
import base64
import hashlib
import re
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "media_gateway"


def project() -> Dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+

        p = tomllib.loads(text)["project"]
        return {k: p[k] for k in ("name", "version", "description", "requires-python")}
    except ImportError:
        section = text.split("[project]", 1)[1].split("\n[", 1)[0]
        return {
            k: re.search(rf'^{re.escape(k)}\s*=\s*"([^"]*)"', section, re.M).group(1)  # type: ignore[union-attr]
            for k in ("name", "version", "description", "requires-python")
        }


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build(out_dir: Path) -> Path:
    meta = project()
    dist = meta["name"].replace("-", "_")
    info = f"{dist}-{meta['version']}.dist-info"
    files: List[Tuple[str, bytes]] = []
    for path in sorted((ROOT / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files.append((path.relative_to(ROOT).as_posix(), path.read_bytes()))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: {meta['name']}\n"
        f"Version: {meta['version']}\n"
        f"Summary: {meta['description']}\n"
        f"Requires-Python: {meta['requires-python']}\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Typing :: Typed\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )
    wheel = "Wheel-Version: 1.0\nGenerator: media_gateway build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files += [(f"{info}/METADATA", metadata.encode()), (f"{info}/WHEEL", wheel.encode()), (f"{info}/top_level.txt", b"media_gateway\n")]
    record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{dist}-{meta['version']}-py3-none-any.whl"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            entry = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return target


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--wheel-dir", default=str(ROOT / "dist"))
    args = parser.parse_args(argv)
    print(build(Path(args.wheel_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
