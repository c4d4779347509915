"""pbgen.Problem against the Go API, bit for bit, and its error handling."""

import math
import os
import threading
import unittest

import numpy as np

import pbgen
from helpers import CAMKII_PROBLEM, CONV, PERELSON, goref, hexes, unhex


def bits(a):
    """The float64s of a as integers: equal bits, not merely equal values."""
    return np.asarray(a, dtype=np.float64).view(np.int64).tolist()


class BitForBit(unittest.TestCase):
    """The bridge computes what objective.Eval computes, to the last bit."""

    def check_problem(self, path, method, theta_of):
        prob = pbgen.Problem(path, method=method)
        theta = theta_of(prob)
        reqs = [dict(kind="problem", path=path, method=method or "", grad=g, fim=f, theta=hexes(theta))
                for g, f in ((False, False), (True, False), (True, True))]
        ref = goref(reqs)
        if ref is None:
            self.skipTest("no Go toolchain (go) and no $PBGEN_GOREF: cannot run the Go reference")
        llh_only, with_grad, with_fim = ref
        self.assertEqual(bits(prob.nominal), bits(unhex(llh_only["nominal"])))
        self.assertEqual(bits([prob.llh(theta)]), bits(unhex([llh_only["llh"]])))
        llh, g = prob.llh_grad(theta)
        self.assertEqual(bits([llh]), bits(unhex([with_grad["llh"]])))
        self.assertEqual(bits(g), bits(unhex(with_grad["grad"])))
        e = prob.evaluate(theta, grad=True, fim=True, residuals=True)
        self.assertEqual(bits([e["llh"], e["chi2"], e["log_prior"]]),
                         bits(unhex([with_fim["llh"], with_fim["chi2"], with_fim["log_prior"]])))
        self.assertEqual(bits(e["grad"]), bits(unhex(with_fim["grad"])))
        self.assertEqual(bits(e["fim"].ravel()), bits(unhex(with_fim["fim"])))
        for k in ("res", "sim", "sigma"):
            self.assertEqual(bits(e[k]), bits(unhex(with_fim[k])), k)
        # pyPESTO's call: the negative log-posterior and the FIM.
        fval, grad, hess = prob(theta, (0, 1, 2))
        self.assertEqual(fval, -(e["llh"] + e["log_prior"]))
        np.testing.assert_array_equal(grad, -(e["grad"] + e["grad_prior"]))
        np.testing.assert_array_equal(hess, e["fim"] - np.diag(e["hess_prior"]))
        prob.close()

    def test_camkii_nominal(self):
        self.check_problem(CAMKII_PROBLEM, None, lambda p: p.nominal)

    def test_camkii_fs_off_nominal(self):
        self.check_problem(CAMKII_PROBLEM, "fs", lambda p: p.nominal + 0.1 * np.arange(p.dim) / p.dim)

    def test_perelson_exp(self):
        self.check_problem(PERELSON, "exp", lambda p: p.nominal)

    def test_conv_preequilibration(self):
        # pre-equilibration, a Laplace log observable, placeholders
        self.check_problem(CONV, None, lambda p: p.nominal)


class Description(unittest.TestCase):
    def test_camkii(self):
        p = pbgen.Problem(CAMKII_PROBLEM)
        self.assertEqual(p.dim, 7)
        self.assertEqual(p.n_data, 66)
        self.assertEqual(p.parameter_ids[0], "kf__CaM__Ca")
        self.assertEqual(set(p.scales), {"log10"})
        lb, ub = p.bounds
        # bounded two decades either side of the nominal value
        np.testing.assert_allclose(ub - p.nominal, 2.0, rtol=1e-12)
        np.testing.assert_allclose(p.nominal - lb, 2.0, rtol=1e-12)
        self.assertTrue(p.has_prior)
        np.testing.assert_allclose(p.to_linear(p.nominal)[0], 0.15191, rtol=1e-12)
        self.assertEqual(len(p.residuals(p.nominal)), 66)
        self.assertEqual(p.fim(p.nominal).shape, (7, 7))

    def test_compiled_equals_interpreted_closely(self):
        c = pbgen.Problem.compiled("camkiipetab")
        i = pbgen.Problem(CAMKII_PROBLEM)
        self.assertEqual(c.parameter_ids, i.parameter_ids)
        self.assertAlmostEqual(c.llh(c.nominal), i.llh(i.nominal), places=6)


class BadInput(unittest.TestCase):
    """Bad input raises PbgenError with the message; the interpreter lives on."""

    def setUp(self):
        self.p = pbgen.Problem(CAMKII_PROBLEM)

    def test_missing_file(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "no-such.yaml"):
            pbgen.Problem("/no/such/dir/no-such.yaml")

    def test_bad_table(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "model.xml"):
            pbgen.Problem(os.path.join(os.path.dirname(__file__), "data", "decay", "model.xml"))

    def test_wrong_length(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "theta has 3 values, want 7"):
            self.p.llh([0.0, 1.0, 2.0])
        with self.assertRaisesRegex(pbgen.PbgenError, "theta has 8 values, want 7"):
            self.p.grad(np.zeros(8))
        with self.assertRaisesRegex(pbgen.PbgenError, "1-D"):
            self.p.llh(np.zeros((7, 1)))

    def test_nan(self):
        th = self.p.nominal.copy()
        th[2] = math.nan
        with self.assertRaisesRegex(pbgen.PbgenError, r"theta\[2\] \(kf__CaM_Ca1__Ca\) is NaN"):
            self.p.fim(th)
        th[2] = math.inf
        with self.assertRaisesRegex(pbgen.PbgenError, "theta"):
            self.p.llh(th)
        # still usable afterwards
        self.assertTrue(math.isfinite(self.p.llh(self.p.nominal)))

    def test_failed_solve(self):
        # k huge on log10 scale: the solve fails or the likelihood is refused, with a message
        th = self.p.nominal.copy()
        th[:] = 300.0
        with self.assertRaises(pbgen.PbgenError) as cm:
            self.p.llh(th)
        self.assertTrue(str(cm.exception))

    def test_bad_options(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "method"):
            pbgen.Problem(CAMKII_PROBLEM, method="rk4")
        with self.assertRaisesRegex(pbgen.PbgenError, "rtol"):
            pbgen.Problem(CAMKII_PROBLEM, rtol=2.0)
        with self.assertRaisesRegex(pbgen.PbgenError, "no compiled problem"):
            pbgen.Problem.compiled("boehm")

    def test_closed(self):
        self.p.close()
        with self.assertRaisesRegex(pbgen.PbgenError, "not an open problem"):
            self.p.llh(np.zeros(7))
        self.p.close()  # twice is fine

    def test_c_abi_misuse(self):
        # What a C caller could get wrong: an unknown handle, a wrong ndata.
        from pbgen import _lib
        lib = _lib.lib()
        with self.assertRaisesRegex(pbgen.PbgenError, "not an open problem"):
            _lib.check(lib.pbgen_problem_eval(123456789, None, 0, 0, None, None, None, None, None, None, None,
                                              None, None, None))
        with self.assertRaisesRegex(pbgen.PbgenError, "not open"):
            _lib.check(lib.pbgen_close(123456789))
        th = self.p.nominal
        r = np.empty(5)
        with self.assertRaisesRegex(pbgen.PbgenError, "ndata = 5, but the problem has 66 data"):
            _lib.check(lib.pbgen_problem_eval(self.p._h, th.ctypes.data, 7, 5, None, None, None, None, None, None,
                                              None, r.ctypes.data, None, None))
        with self.assertRaisesRegex(pbgen.PbgenError, "NULL json"):
            _lib.check(lib.pbgen_problem_info(self.p._h, None))
        m = pbgen.Model.compiled("camkii")
        with self.assertRaisesRegex(pbgen.PbgenError, "is not a problem"):
            _lib.check(lib.pbgen_problem_eval(m._h, th.ctypes.data, 7, 0, None, None, None, None, None, None,
                                              None, None, None, None))

    def test_pypesto_modes(self):
        with self.assertRaisesRegex(pbgen.PbgenError, "sres"):
            self.p(self.p.nominal, (0, 1), mode="mode_res")
        self.assertEqual(len(self.p(self.p.nominal, (0,), mode="mode_res")), 66)
        d = self.p(self.p.nominal, (0, 1), return_dict=True)
        self.assertEqual(set(d), {"fval", "grad"})


class Copies(unittest.TestCase):
    def test_pickle_and_deepcopy(self):
        import copy
        import pickle
        p = pbgen.Problem(CAMKII_PROBLEM, method="fs", prior=False)
        for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
            self.assertNotEqual(q._h, p._h)  # a handle of its own
            self.assertFalse(q.prior)
            self.assertEqual(q.llh(q.nominal), p.llh(p.nominal))
        c = pickle.loads(pickle.dumps(pbgen.Problem.compiled("camkiipetab")))
        self.assertEqual(c.dim, 7)
        m = pickle.loads(pickle.dumps(pbgen.Model.compiled("camkii")))
        self.assertEqual(len(m.state_ids), 21)


class Threads(unittest.TestCase):
    def test_one_problem_per_thread(self):
        ref = pbgen.Problem(CAMKII_PROBLEM).llh_grad(pbgen.Problem(CAMKII_PROBLEM).nominal)
        out = [None] * 4

        def work(i):
            p = pbgen.Problem(CAMKII_PROBLEM)
            out[i] = p.llh_grad(p.nominal)

        ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for llh, g in out:
            self.assertEqual(llh, ref[0])
            np.testing.assert_array_equal(g, ref[1])


if __name__ == "__main__":
    unittest.main()


class Sample(unittest.TestCase):
    def test_smmala_bit_for_bit(self):
        p = pbgen.Problem(PERELSON)
        d = p.sample(samples=40, warmup=40, chains=2, seed=7)
        self.assertEqual(d["draws"].shape, (2, 40, p.dim))
        self.assertEqual(d["log_post"].shape, (2, 40))
        self.assertTrue(np.all((d["accept"] >= 0) & (d["accept"] <= 1)))
        lb, ub = p.bounds
        self.assertTrue(np.all((d["draws"] >= lb) & (d["draws"] <= ub)))
        ref = goref([dict(kind="sample", path=PERELSON, sampler="smmala", chains=2, warmup=40, samples=40, seed=7)])
        if ref is None:
            self.skipTest("no Go toolchain (go) and no $PBGEN_GOREF: cannot run the Go reference")
        self.assertEqual(bits(d["draws"].ravel()), bits(unhex(ref[0]["draws"])))
        self.assertEqual(bits(d["log_post"].ravel()), bits(unhex(ref[0]["log_post"])))

    def test_errors(self):
        p = pbgen.Problem(PERELSON)
        with self.assertRaisesRegex(pbgen.PbgenError, "sampler"):
            p.sample(samples=5, warmup=0, chains=1, sampler="nuts")
        with self.assertRaisesRegex(pbgen.PbgenError, "chains"):
            p.sample(samples=5, chains=0)
        with self.assertRaisesRegex(pbgen.PbgenError, "compiled"):
            pbgen.Problem.compiled("camkiipetab").sample(samples=5, warmup=0, chains=1)
