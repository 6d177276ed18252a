"""The package builds as a wheel offline and runs from it with nothing else installed."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setuptools_builds_wheels() -> bool:
    """pip and setuptools, and a bdist_wheel: setuptools' own (70.1 and later) or the `wheel` package's."""
    probe = "import setuptools\ntry:\n    import setuptools.command.bdist_wheel\nexcept ImportError:\n    import wheel\nimport pip"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


def test_the_wheel_builds_offline_and_imports(tmp_path):
    out = tmp_path / "wheels"
    if setuptools_builds_wheels():
        cmd = [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out)]
    else:
        # No bdist_wheel here (setuptools before 70.1 without the `wheel` package): the stdlib builder.
        cmd = [sys.executable, str(ROOT / "scripts" / "build_wheel.py"), "-w", str(out)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    [wheel] = list(out.glob("media_gateway-*-py3-none-any.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "media_gateway/_operations.py" in names and "media_gateway/py.typed" in names
        assert not any(n.startswith(("tests/", "scripts/")) for n in names)
        z.extractall(tmp_path / "site")
    # A pure-Python wheel installs by unpacking: import it from there, with no other path.
    probe = (
        "import media_gateway, importlib.metadata as m; "
        "assert media_gateway.__file__.startswith(%r); "
        "print(m.version('media-gateway'), len(media_gateway.OPERATIONS))" % str(tmp_path / "site")
    )
    run = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); {probe}"],
                         capture_output=True, text=True, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "0.1.0"
