"""pbgen from Python: PEtab objectives and SBML simulations as numpy arrays.

A thin ctypes layer over libpbgen, pbgen's C ABI (cmd/libpbgen in the
repository, built by `make python`). It needs numpy and nothing else.

    import pbgen
    prob = pbgen.Problem("problem.yaml")        # a PEtab problem
    theta = prob.nominal                        # on the parameter scales
    prob.llh(theta), prob.grad(theta), prob.fim(theta)
    fval, grad, hess = prob(theta, (0, 1, 2))   # pyPESTO's objective call

    model = pbgen.Model("network.xml")          # an SBML model
    sim = model.simulate(t, method="fs")        # sim.x[k, i], sim.S[k, i, j]

Parameters theta are on the parameter scales of the PEtab parameter table
(lin, log, log10), as pyPESTO and AMICI optimise them; `bounds` and
`nominal` are on those scales too. See docs/python.md.

Threads: use one Problem or Model per thread. Calls on one object are
serialised inside the library (a second thread waits), calls on different
objects run in parallel (ctypes releases the GIL during the call).
"""

import json

import numpy as np

from . import _lib
from ._lib import PbgenError

__all__ = ["Problem", "Model", "Simulation", "PbgenError", "METHODS"]

#: The sensitivity methods; "none" (Model.simulate only) computes x alone.
METHODS = ("fs", "pbs", "pbsr", "exp")

_F64 = np.float64


def _floats(values):
    """A JSON list of numbers (with "inf", "-inf", "nan") as an array."""
    return np.array([float(v) for v in values], dtype=_F64)


def _vector(theta, what):
    """theta as a contiguous 1-D float64 array, without a copy where it is one."""
    a = np.ascontiguousarray(theta, dtype=_F64)
    if a.ndim != 1:
        raise PbgenError(f"pbgen: {what} must be a 1-D sequence of numbers, got an array of shape {a.shape}")
    return a


def _addr(a):
    return a.ctypes.data if a is not None else None


def _method_arg(method, what="method", choices=METHODS + ("none",)):
    """A string option as bytes for the library (None: its default)."""
    if method is None:
        return None
    if not isinstance(method, str):
        raise PbgenError(f"pbgen: {what} must be a string ({', '.join(choices)}), got {method!r}")
    return method.encode()


class _Handle:
    """An open handle of the library, closed by close() or when collected."""

    _h = 0

    def close(self):
        """Releases the library's object; later calls raise PbgenError."""
        h, self._h = self._h, 0
        if h and _lib._lib is not None:
            _lib.check(_lib._lib.pbgen_close(h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _info(self, fn):
        out = _lib.ctypes.c_void_p()
        _lib.check(fn(self._h, _lib.ctypes.byref(out)))
        return json.loads(_lib.take_string(out.value))


class Problem(_Handle):
    """A PEtab estimation problem: log-likelihood, gradient, Fisher information.

    Problem(path) reads the YAML file; Problem.compiled(name) opens a problem
    compiled into the library ("camkiipetab"). method is "fs", "pbs",
    "pbsr" or "exp" (None: the runtime's default), rtol and atol the solver's
    tolerances (0: defaults 1e-6 and 1e-8), workers the experiments solved in
    parallel. prior decides what __call__ minimises: the negative
    log-posterior when True (the problem's objective priors added, as
    pyPESTO's PEtab importer does), the negative log-likelihood when False.
    """

    def __init__(self, path, method=None, rtol=0.0, atol=0.0, workers=0, prior=True, _compiled=False):
        self._args = (path, method, rtol, atol, workers, prior, _compiled)
        lib = _lib.lib()
        h = _lib._handle()
        fn = lib.pbgen_problem_compiled if _compiled else lib.pbgen_problem_load
        _lib.check(fn(str(path).encode(), _method_arg(method), float(rtol), float(atol), int(workers),
                      _lib.ctypes.byref(h)))
        self._h = h.value
        self._eval = lib.pbgen_problem_eval
        info = self._info(lib.pbgen_problem_info)
        self.path = str(path)
        self.prior = bool(prior)
        #: ids of the estimated parameters, in theta's order
        self.parameter_ids = list(info["parameter_ids"])
        #: their scales: "lin", "log" or "log10"
        self.scales = list(info["scales"])
        #: the nominal values on the scales
        self.nominal = _floats(info["nominal"])
        self.lb = _floats(info["lower"])
        self.ub = _floats(info["upper"])
        #: whether the parameter table has objective priors
        self.has_prior = bool(info["has_prior"])
        #: per datum, in the order of residuals(): observable, time, experiment
        self.data_observables = list(info["data_observables"])
        self.data_times = _floats(info["data_times"])
        self.data_experiments = list(info["data_experiments"])
        self._n = len(self.parameter_ids)
        self._nd = len(self.data_observables)
        self._scalars = np.empty(3, dtype=_F64)

    @classmethod
    def compiled(cls, name, **kw):
        """The PEtab problem compiled into the library under name."""
        return cls(name, _compiled=True, **kw)

    # Pickling and copying re-open the problem from its arguments, with a
    # handle of its own: what pyPESTO's multi-process engine and its
    # objective.copy() (deepcopy) need, and one handle per thread.
    def __getstate__(self):
        return {"args": self._args}

    def __setstate__(self, state):
        Problem.__init__(self, *state["args"])

    @property
    def bounds(self):
        """(lower, upper), arrays on the parameter scales."""
        return self.lb.copy(), self.ub.copy()

    @property
    def dim(self):
        """The number of estimated parameters."""
        return self._n

    @property
    def n_data(self):
        return self._nd

    def to_linear(self, theta):
        """theta on the parameter scales to the parameters' linear values."""
        th = _vector(theta, "theta")
        out = th.copy()
        for a, s in enumerate(self.scales):
            if s == "log":
                out[a] = np.exp(th[a])
            elif s == "log10":
                out[a] = 10.0 ** th[a]
        return out

    def evaluate(self, theta, grad=False, fim=False, residuals=False):
        """Everything at theta, as a dict.

        Always llh, chi2, log_prior; with grad the arrays grad (dllh/dtheta)
        and grad_prior; with fim the (n, n) fim and the diagonal hess_prior
        of the log-prior's Hessian; with residuals res, sim and sigma (per
        datum).
        """
        th = _vector(theta, "theta")
        n, nd = th.shape[0], self._nd
        out = {}
        g = gp = f = hp = r = sm = sg = None
        if grad:
            g, gp = np.empty(n, dtype=_F64), np.empty(n, dtype=_F64)
        if fim:
            f, hp = np.empty((n, n), dtype=_F64), np.empty(n, dtype=_F64)
        if residuals:
            r, sm, sg = (np.empty(nd, dtype=_F64) for _ in range(3))
        sc = self._scalars
        a = sc.ctypes.data
        _lib.check(self._eval(self._h, th.ctypes.data, n, nd, a, a + 8, a + 16, _addr(g), _addr(gp), _addr(f),
                              _addr(hp), _addr(r), _addr(sm), _addr(sg)))
        out["llh"], out["chi2"], out["log_prior"] = float(sc[0]), float(sc[1]), float(sc[2])
        if grad:
            out["grad"], out["grad_prior"] = g, gp
        if fim:
            out["fim"], out["hess_prior"] = f, hp
        if residuals:
            out["res"], out["sim"], out["sigma"] = r, sm, sg
        return out

    def llh(self, theta):
        """The log-likelihood at theta (larger is better)."""
        th = _vector(theta, "theta")
        a = self._scalars.ctypes.data
        _lib.check(self._eval(self._h, th.ctypes.data, th.shape[0], self._nd, a, None, None,
                              None, None, None, None, None, None, None))
        return float(self._scalars[0])

    def chi2(self, theta):
        """The sum of squared residuals at theta."""
        return self.evaluate(theta)["chi2"]

    def llh_grad(self, theta):
        """(llh, dllh/dtheta) from one solve."""
        th = _vector(theta, "theta")
        n = th.shape[0]
        g = np.empty(n, dtype=_F64)
        a = self._scalars.ctypes.data
        _lib.check(self._eval(self._h, th.ctypes.data, n, self._nd, a, None, None,
                              g.ctypes.data, None, None, None, None, None, None))
        return float(self._scalars[0]), g

    def grad(self, theta):
        """dllh/dtheta, theta on the parameter scales."""
        return self.llh_grad(theta)[1]

    def fim(self, theta):
        """The Fisher information of the likelihood in theta, (n, n)."""
        return self.evaluate(theta, grad=True, fim=True)["fim"]

    def residuals(self, theta):
        """(z(h) - z(m)) / sigma per datum, in the order of data_observables."""
        return self.evaluate(theta, residuals=True)["res"]

    def simulations(self, theta):
        """The simulated observable per datum (untransformed)."""
        return self.evaluate(theta, residuals=True)["sim"]

    def sample(self, samples=1000, warmup=1000, chains=4, sampler="smmala", seed=0, init="prior"):
        """MCMC on the posterior (pbgen sample: SMMALA with the FIM metric,
        MALA or RWM), one chain per thread inside the library.

        Returns a dict: draws (chains, samples, dim) on the parameter scales,
        log_post (chains, samples), accept (chains,), parameter_ids. The
        (chain, draw, parameter) layout is ArviZ's:
        arviz.from_dict(posterior={id: d["draws"][:, :, k] ...}).
        init "prior" draws each chain's start from the initialization
        priors, "nominal" starts at the nominal values. Only for a problem
        read from files.
        """
        for name, v, least in (("chains", chains, 1), ("samples", samples, 1), ("warmup", warmup, 0)):
            if int(v) != v or v < least:
                raise PbgenError(f"pbgen: {name} = {v!r}, want an integer >= {least}")
        c, s, d = int(chains), int(samples), self._n
        draws = np.empty((c, s, d), dtype=_F64)
        lp = np.empty((c, s), dtype=_F64)
        acc = np.empty(c, dtype=_F64)
        smp = _method_arg(sampler, "sampler", ("smmala", "mala", "rwm"))
        ini = _method_arg(init, "init", ("prior", "nominal"))
        _lib.check(_lib._lib.pbgen_problem_sample(self._h, smp, c, int(warmup), s, int(seed), ini,
                                                  draws.ctypes.data, draws.size, lp.ctypes.data, lp.size,
                                                  acc.ctypes.data))
        return {"draws": draws, "log_post": lp, "accept": acc, "parameter_ids": list(self.parameter_ids)}

    def time_go(self, theta, n, grad=True, fim=False):
        """CPU seconds per evaluation of a Go loop of n inside the library.

        The Go side of the bridge's overhead (tests/bench_overhead.py): the
        same evaluation as llh_grad (grad) or evaluate(fim=True), without
        Python between them.
        """
        th = _vector(theta, "theta")
        s = _lib.ctypes.c_double()
        _lib.check(_lib._lib.pbgen_problem_time_eval(self._h, th.ctypes.data, th.shape[0], int(n), int(grad),
                                                      int(fim), _lib.ctypes.byref(s)))
        return s.value

    def __call__(self, x, sensi_orders=(0,), mode="mode_fun", return_dict=False, **kwargs):
        """pyPESTO's objective call: fval = -llh (- log prior when prior),
        grad its gradient, hess the FIM as the Gauss-Newton Hessian (minus the
        log-prior's Hessian diagonal). mode "mode_res" returns the residuals
        (sensi_orders (0,) only: their Jacobian sres is not computed).

        With return_dict a dict {"fval", "grad", "hess"} (or {"res"}); else
        the requested outputs in sensi_orders' order, one bare.
        """
        orders = tuple(sensi_orders)
        if mode == "mode_res":
            if orders != (0,):
                raise PbgenError("pbgen: mode_res gives the residuals only (sensi_orders (0,)): "
                                 "their Jacobian sres is not computed; use mode_fun with the FIM")
            res = self.residuals(x)
            return {"res": res} if return_dict else res
        if mode != "mode_fun":
            raise PbgenError(f"pbgen: mode {mode!r}: want 'mode_fun' or 'mode_res'")
        if any(o not in (0, 1, 2) for o in orders) or not orders:
            raise PbgenError(f"pbgen: sensi_orders {orders!r}: want orders among 0, 1 and 2")
        e = self.evaluate(x, grad=max(orders) >= 1, fim=max(orders) >= 2)
        w = 1.0 if self.prior else 0.0
        result = {"fval": -(e["llh"] + w * e["log_prior"])}
        if max(orders) >= 1:
            result["grad"] = -(e["grad"] + w * e["grad_prior"])
        if max(orders) >= 2:
            h = e["fim"]
            if w:
                h[np.diag_indices_from(h)] -= e["hess_prior"]
            result["hess"] = h
        if return_dict:
            return result
        names = ("fval", "grad", "hess")
        out = tuple(result[names[o]] for o in orders)
        return out[0] if len(out) == 1 else out

    # scipy.optimize's spellings of the negative log-posterior.
    def fun(self, x):
        """The value pyPESTO minimises (see __call__)."""
        return self(x, (0,))

    def fun_grad(self, x):
        """(fval, grad): scipy.optimize.minimize(..., jac=True)."""
        return self(x, (0, 1))

    def jac(self, x):
        """The gradient of fun (scipy.optimize.minimize(fun, x0, jac=jac))."""
        return self(x, (1,))

    def hess(self, x):
        """The Gauss-Newton Hessian of fun (see __call__)."""
        return self(x, (2,))

    def __repr__(self):
        return f"pbgen.Problem({self.path!r}: {self._n} parameters, {self._nd} data)"


class Simulation:
    """x and S of Model.simulate with their ids.

    t (nt,), x (nt, nx): x[k, i] is state_ids[i] at t[k]; S (nt, nx, np):
    S[k, i, j] = d x_i / d p_j at t[k] (None with method "none"); p the
    parameter values used.
    """

    __slots__ = ("t", "x", "S", "p", "state_ids", "parameter_ids")

    def __init__(self, t, x, S, p, state_ids, parameter_ids):
        self.t, self.x, self.S, self.p = t, x, S, p
        self.state_ids, self.parameter_ids = state_ids, parameter_ids

    def state(self, sid):
        """The trajectory of the state named sid."""
        return self.x[:, self.state_ids.index(sid)]

    def __repr__(self):
        s = "" if self.S is None else f", S {self.S.shape}"
        return f"pbgen.Simulation(x {self.x.shape}{s})"


class Model(_Handle):
    """A reaction network: x(t) and S(t) = dx/dp as numpy arrays.

    Model(path) reads an SBML file (its sensitivity parameters: every
    constant global parameter, in document order); Model.compiled(name)
    opens a generated package linked into the library ("camkii", "pka",
    "chua").
    """

    def __init__(self, path, _compiled=False):
        self._args = (path, _compiled)
        lib = _lib.lib()
        h = _lib._handle()
        fn = lib.pbgen_model_compiled if _compiled else lib.pbgen_model_load
        _lib.check(fn(str(path).encode(), _lib.ctypes.byref(h)))
        self._h = h.value
        self._sim = lib.pbgen_model_simulate
        info = self._info(lib.pbgen_model_info)
        self.path = str(path)
        self.state_ids = list(info["state_ids"])
        self.parameter_ids = list(info["parameter_ids"])
        #: the model's parameter values
        self.defaults = _floats(info["defaults"])
        #: the initial state at the defaults
        self.x0 = _floats(info["x0"])
        self.has_events = bool(info["events"])
        self.has_delays = bool(info["delays"])

    @classmethod
    def compiled(cls, name):
        """The generated package linked into the library under name."""
        return cls(name, _compiled=True)

    def __getstate__(self):
        return {"args": self._args}

    def __setstate__(self, state):
        Model.__init__(self, *state["args"])

    def _params(self, p):
        if p is None:
            return self.defaults.copy()
        if isinstance(p, dict):
            out = self.defaults.copy()
            for k, v in p.items():
                if k not in self.parameter_ids:
                    raise PbgenError(f"pbgen: no parameter {k!r} (have {', '.join(self.parameter_ids[:20])})")
                out[self.parameter_ids.index(k)] = v
            return out
        return _vector(p, "p")

    def simulate(self, t, p=None, method="pbsr", x0=None, rtol=0.0, atol=0.0, t0=0.0):
        """Solves from t0 to the output times t (ascending, >= t0).

        p: None (the defaults), an array in parameter_ids order, or a dict
        of values by id that replace defaults. method: "fs", "pbs", "pbsr",
        "exp" (S computed) or "none". x0: None for the model's initial state
        (S(t0) = dx0/dp), or the states' values (taken as independent of p:
        S(t0) = 0). rtol, atol: 0 for the defaults (1e-6, 1e-8).
        """
        ts = _vector(t, "t")
        pp = self._params(p)
        xs0 = None if x0 is None else _vector(x0, "x0")
        nt, nx, npar = ts.shape[0], len(self.state_ids), len(self.parameter_ids)
        with_s = not (isinstance(method, str) and method.lower() == "none")
        x = np.empty((nt, nx), dtype=_F64)
        S = np.empty((nt, nx, npar), dtype=_F64) if with_s else None
        _lib.check(self._sim(self._h, ts.ctypes.data, nt, pp.ctypes.data, pp.shape[0], _addr(xs0),
                             0 if xs0 is None else xs0.shape[0], _method_arg(method), float(rtol), float(atol),
                             float(t0), x.ctypes.data, x.size, _addr(S), 0 if S is None else S.size))
        return Simulation(ts.copy(), x, S, pp, self.state_ids, self.parameter_ids)

    def __repr__(self):
        return f"pbgen.Model({self.path!r}: {len(self.state_ids)} states, {len(self.parameter_ids)} parameters)"
