"""scipy.optimize fits the decay problem (data exact at known values) with
pbgen's gradient and FIM, and the shipped CaMKII problem to a stationary
point."""

import unittest

import numpy as np

import pbgen
from helpers import CAMKII_PROBLEM, DECAY

try:
    from scipy.optimize import minimize
except ImportError:  # pragma: no cover
    minimize = None

TRUTH = np.log10([0.5, 0.2, 2.0])  # k1, k2, scale (log10 scale)


@unittest.skipIf(minimize is None, "scipy is not installed")
class Fit(unittest.TestCase):
    def setUp(self):
        self.p = pbgen.Problem(DECAY, method="fs", rtol=1e-10, atol=1e-12)
        self.bounds = list(zip(*self.p.bounds))

    def test_lbfgsb(self):
        r = minimize(self.p.fun_grad, self.p.nominal, jac=True, method="L-BFGS-B", bounds=self.bounds,
                     options=dict(maxiter=500, ftol=1e-15, gtol=1e-10))
        self.assertTrue(r.success, r.message)
        np.testing.assert_allclose(r.x, TRUTH, atol=1e-5)
        self.assertLess(self.p.chi2(r.x), 1e-8)

    def test_trust_constr_fim(self):
        from scipy.optimize import Bounds
        lb, ub = self.p.bounds
        r = minimize(self.p.fun, self.p.nominal, jac=self.p.jac, hess=self.p.hess, method="trust-constr",
                     bounds=Bounds(lb, ub), options=dict(maxiter=500, gtol=1e-10, xtol=1e-14))
        np.testing.assert_allclose(r.x, TRUTH, atol=1e-5)
        self.assertLess(self.p.chi2(r.x), 1e-8)

    def test_camkii_stationary(self):
        # No closed-form optimum (noisy data, a prior), but a fit must end
        # better than the start with the posterior's gradient near zero.
        p = pbgen.Problem(CAMKII_PROBLEM)
        r = minimize(p.fun_grad, p.nominal, jac=True, method="L-BFGS-B", bounds=list(zip(*p.bounds)),
                     options=dict(maxiter=200))
        self.assertLess(r.fun, p.fun(p.nominal) - 1.0)
        g = p.fun_grad(r.x)[1]
        lb, ub = p.bounds
        free = (r.x > lb + 1e-6) & (r.x < ub - 1e-6)
        self.assertLess(np.abs(g[free]).max(), 1e-2 * np.abs(p.fun_grad(p.nominal)[1]).max())


if __name__ == "__main__":
    unittest.main()


class Derivatives(unittest.TestCase):
    """At decay's optimum the residuals vanish, so the FIM is the exact
    Hessian of -llh: both the gradient and the FIM are checked against
    central differences."""

    def test_grad_and_fim_by_differences(self):
        p = pbgen.Problem(DECAY, method="fs", rtol=1e-11, atol=1e-13)
        h = 1e-5
        x = TRUTH + np.array([0.01, -0.02, 0.015])  # off the optimum for the gradient
        g = p.grad(x)
        for a in range(p.dim):
            e = np.zeros(p.dim)
            e[a] = h
            fd = (p.llh(x + e) - p.llh(x - e)) / (2 * h)
            self.assertAlmostEqual(g[a], fd, delta=1e-5 * max(1.0, abs(fd)))
        hess = p.hess(TRUTH)
        for a in range(p.dim):
            e = np.zeros(p.dim)
            e[a] = h
            fd = (p.jac(TRUTH + e) - p.jac(TRUTH - e)) / (2 * h)
            np.testing.assert_allclose(hess[a], fd, rtol=1e-4, atol=1e-4 * np.abs(hess).max())
