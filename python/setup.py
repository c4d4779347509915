"""pip install ./python: builds libpbgen.so with the Go toolchain.

The package is pure Python over ctypes; the shared library it loads is
pbgen's C ABI, `go build -buildmode=c-shared ./cmd/libpbgen`, built here
into the package before it is copied (go must be on PATH; $GO overrides).
"""

import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithGo(build_py):
    def run(self):
        repo = os.path.dirname(HERE)
        out = os.path.join(HERE, "pbgen", "libpbgen.so")
        go = os.environ.get("GO", "go")
        try:
            subprocess.run([go, "build", "-buildmode=c-shared", "-o", out, "./cmd/libpbgen"], cwd=repo, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise SystemExit(f"pbgen: building libpbgen.so with `{go} build -buildmode=c-shared ./cmd/libpbgen` "
                             f"in {repo} failed ({e}); pip install ./python needs the Go toolchain and a checkout")
        super().run()


setup(cmdclass={"build_py": BuildWithGo})
