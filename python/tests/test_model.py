"""pbgen.Model.simulate against the Go API, bit for bit, and its errors."""

import math
import unittest

import numpy as np

import pbgen
from helpers import CAMKII_XML, goref, hexes, unhex


def bits(a):
    return np.asarray(a, dtype=np.float64).ravel().view(np.int64).tolist()


class Simulate(unittest.TestCase):
    ts = np.array([0.1, 0.5, 1.0, 2.0, 5.0, 10.0])

    def compare(self, model, req, method):
        p = model.defaults.copy()
        p[0] *= 1.5
        sim = model.simulate(self.ts, p, method=method)
        again = model.simulate(self.ts, p, method=method)  # a reused solver changes nothing
        ref = goref([dict(kind="model", method=method, ts=hexes(self.ts), p=hexes(p), **req)])
        if ref is None:
            self.skipTest("no Go toolchain (go) and no $PBGEN_GOREF: cannot run the Go reference")
        self.assertEqual(sim.x.shape, (len(self.ts), len(model.state_ids)))
        self.assertEqual(sim.S.shape, (len(self.ts), len(model.state_ids), len(model.parameter_ids)))
        self.assertEqual(bits(sim.x), bits(unhex(ref[0]["x"])))
        self.assertEqual(bits(sim.S), bits(unhex(ref[0]["S"])))
        self.assertEqual(bits(again.x), bits(sim.x))
        self.assertEqual(bits(again.S), bits(sim.S))

    def test_sbml_fs(self):
        self.compare(pbgen.Model(CAMKII_XML), dict(path=CAMKII_XML), "fs")

    def test_sbml_pbsr(self):
        self.compare(pbgen.Model(CAMKII_XML), dict(path=CAMKII_XML), "pbsr")

    def test_compiled_exp(self):
        self.compare(pbgen.Model.compiled("camkii"), dict(compiled="camkii"), "exp")

    def test_ids_and_none(self):
        m = pbgen.Model(CAMKII_XML)
        self.assertEqual(len(m.state_ids), 21)
        self.assertEqual(len(m.parameter_ids), 59)
        sim = m.simulate(self.ts, method="none")
        self.assertIsNone(sim.S)
        fs = m.simulate(self.ts, method="fs", rtol=1e-9, atol=1e-11)
        # the state alone agrees with the sensitivity solve to the tolerances
        np.testing.assert_allclose(sim.x, fs.x, rtol=1e-4, atol=1e-6)
        self.assertEqual(sim.state(m.state_ids[3]).shape, (len(self.ts),))
        # a parameter set by id
        s2 = m.simulate(self.ts, {m.parameter_ids[0]: 2 * m.defaults[0]}, method="none")
        self.assertFalse(np.array_equal(s2.x, sim.x))

    def test_sensitivity_by_difference(self):
        # S against a central difference of x in one parameter
        m = pbgen.Model.compiled("camkii")
        p = m.defaults.copy()
        s = m.simulate(self.ts, p, method="fs", rtol=1e-10, atol=1e-12)
        # the parameter x depends on most, relative to its value
        j = int(np.argmax(np.abs(s.S).max(axis=(0, 1)) * np.abs(p)))
        h = 1e-4 * p[j]
        up, dn = p.copy(), p.copy()
        up[j] += h
        dn[j] -= h
        xu = m.simulate(self.ts, up, method="none", rtol=1e-12, atol=1e-14).x
        xd = m.simulate(self.ts, dn, method="none", rtol=1e-12, atol=1e-14).x
        fd = (xu - xd) / (2 * h)
        np.testing.assert_allclose(s.S[:, :, j], fd, rtol=1e-4, atol=1e-6 * np.abs(fd).max())


class BadInput(unittest.TestCase):
    def setUp(self):
        self.m = pbgen.Model.compiled("camkii")

    def test_missing_file(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "no-such.xml"):
            pbgen.Model("/no/such/no-such.xml")

    def test_not_sbml(self):
        with self.assertRaises(pbgen.PbgenError):
            pbgen.Model(__file__)

    def test_wrong_lengths(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "p has 3 values, want 59"):
            self.m.simulate([1.0], [1.0, 2.0, 3.0])
        with self.assertRaisesRegex(pbgen.PbgenError, "x0 has 2 values, want 21"):
            self.m.simulate([1.0], x0=[1.0, 2.0])
        with self.assertRaisesRegex(pbgen.PbgenError, "no parameter 'nope'"):
            self.m.simulate([1.0], {"nope": 1.0})

    def test_nan_and_times(self):
        p = self.m.defaults.copy()
        p[4] = math.nan
        with self.assertRaisesRegex(pbgen.PbgenError, r"p\[4\].*NaN"):
            self.m.simulate([1.0], p)
        with self.assertRaisesRegex(pbgen.PbgenError, "must increase"):
            self.m.simulate([2.0, 1.0])
        with self.assertRaisesRegex(pbgen.PbgenError, "before t0"):
            self.m.simulate([-1.0])
        with self.assertRaisesRegex(pbgen.PbgenError, "no output times"):
            self.m.simulate([])
        with self.assertRaisesRegex(pbgen.PbgenError, "method"):
            self.m.simulate([1.0], method="rk45")
        self.assertEqual(self.m.simulate([1.0]).x.shape, (1, 21))


if __name__ == "__main__":
    unittest.main()
