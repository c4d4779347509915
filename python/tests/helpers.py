"""Shared test helpers: paths and the Go reference (goref)."""

import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CAMKII_PROBLEM = os.path.join(REPO, "networks", "petab", "CaMKII", "problem.yaml")
PERELSON = os.path.join(REPO, "networks", "petab", "Perelson_Science1996", "Perelson_Science1996.yaml")
CONV = os.path.join(REPO, "petab", "testdata", "conv", "problem.yaml")
DECAY = os.path.join(HERE, "data", "decay", "problem.yaml")
CAMKII_XML = os.path.join(REPO, "networks", "CaMKII.xml")


def goref(requests):
    """Runs python/tests/goref (the Go API) on requests; None without Go.

    $PBGEN_GOREF is a built goref (scripts/python-test.sh builds one);
    else `go run`, when go is on PATH.
    """
    exe = os.environ.get("PBGEN_GOREF")
    if exe:
        cmd = [exe]
    elif shutil.which("go"):
        cmd = ["go", "run", "./python/tests/goref"]
    else:
        return None
    p = subprocess.run(cmd, input=json.dumps(requests), capture_output=True, text=True, cwd=REPO, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"goref failed: {p.stderr}")
    return json.loads(p.stdout)


def hexes(values):
    return [float(v).hex() for v in values]


def unhex(values):
    return [float.fromhex(v) for v in values]
