package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"runtime/debug"
	"unsafe"

	"github.com/pbgen/pbgen/capi"
)

// version is the C ABI's version: pbgen_abi_version returns it, and the
// Python package refuses a library of another.
const version = 1

// fail is the error return of an exported function: a C string the
// caller frees with pbgen_free.
func fail(err error) *C.char {
	if err == nil {
		return nil
	}
	return C.CString(err.Error())
}

// recoverTo turns a panic into the function's error return.
func recoverTo(ret **C.char) {
	if r := recover(); r != nil {
		*ret = C.CString(fmt.Sprintf("pbgen: internal error (please report): %v\n%s", r, debug.Stack()))
	}
}

// lookup returns the value behind handle h, of type T.
func lookup[T any](h C.uintptr_t, what string) (v T, err error) {
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("pbgen: handle %d is not an open %s (closed, or never opened)", uintptr(h), what)
		}
	}()
	if h == 0 {
		return v, fmt.Errorf("pbgen: handle 0 is not an open %s", what)
	}
	v, ok := cgo.Handle(h).Value().(T)
	if !ok {
		return v, fmt.Errorf("pbgen: handle %d is not a %s", uintptr(h), what)
	}
	return v, nil
}

// floats is n doubles at ptr as a slice, nil for a NULL pointer.
func floats(ptr *C.double, n C.int64_t) []float64 {
	if ptr == nil || n <= 0 {
		if ptr != nil {
			return []float64{}
		}
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(ptr)), int(n))
}

// setOut sets *out if out is not NULL.
func setOut(out *C.double) *float64 {
	return (*float64)(unsafe.Pointer(out))
}

//export pbgen_abi_version
func pbgen_abi_version() C.int { return version }

//export pbgen_free
func pbgen_free(s *C.char) { C.free(unsafe.Pointer(s)) }

//export pbgen_close
func pbgen_close(h C.uintptr_t) (ret *C.char) {
	defer recoverTo(&ret)
	defer func() {
		if recover() != nil {
			ret = fail(fmt.Errorf("pbgen: handle %d is not open (closed twice, or never opened)", uintptr(h)))
		}
	}()
	switch v := cgo.Handle(h).Value().(type) {
	case *capi.Problem:
		v.Close()
	case *capi.Model:
		v.Close()
	}
	cgo.Handle(h).Delete()
	return nil
}

func problemOptions(method *C.char, rtol, atol C.double, workers C.int) *capi.Options {
	o := &capi.Options{RTol: float64(rtol), ATol: float64(atol), Workers: int(workers)}
	if method != nil {
		o.Method = C.GoString(method)
	}
	return o
}

// pbgen_problem_load reads a PEtab problem (the YAML file at path);
// method may be NULL or "" for the default, rtol and atol 0.
//
//export pbgen_problem_load
func pbgen_problem_load(path, method *C.char, rtol, atol C.double, workers C.int, out *C.uintptr_t) (ret *C.char) {
	defer recoverTo(&ret)
	if path == nil || out == nil {
		return fail(fmt.Errorf("pbgen_problem_load: NULL path or handle pointer"))
	}
	p, err := capi.LoadProblem(C.GoString(path), problemOptions(method, rtol, atol, workers))
	if err != nil {
		return fail(err)
	}
	*out = C.uintptr_t(cgo.NewHandle(p))
	return nil
}

// pbgen_problem_compiled opens a PEtab problem compiled into the
// library (pbgen petab -gen) by name.
//
//export pbgen_problem_compiled
func pbgen_problem_compiled(name, method *C.char, rtol, atol C.double, workers C.int, out *C.uintptr_t) (ret *C.char) {
	defer recoverTo(&ret)
	if name == nil || out == nil {
		return fail(fmt.Errorf("pbgen_problem_compiled: NULL name or handle pointer"))
	}
	p, err := capi.CompiledProblem(C.GoString(name), problemOptions(method, rtol, atol, workers))
	if err != nil {
		return fail(err)
	}
	*out = C.uintptr_t(cgo.NewHandle(p))
	return nil
}

// pbgen_problem_info writes the problem's description as JSON
// (capi.ProblemInfo) to *json, which the caller frees with pbgen_free.
//
//export pbgen_problem_info
func pbgen_problem_info(h C.uintptr_t, json **C.char) (ret *C.char) {
	defer recoverTo(&ret)
	if json == nil {
		return fail(fmt.Errorf("pbgen_problem_info: NULL json pointer"))
	}
	p, err := lookup[*capi.Problem](h, "problem")
	if err != nil {
		return fail(err)
	}
	s, err := capi.InfoJSON(p.Info())
	if err != nil {
		return fail(err)
	}
	*json = C.CString(s)
	return nil
}

// pbgen_problem_eval evaluates the problem at theta (n values, on the
// parameter scales). Outputs that are not NULL are written: llh, chi2
// and logprior one double each; grad, grad_prior and hess_prior n;
// fim n*n (row-major); res, sim and sigma ndata, the problem's number
// of data.
//
//export pbgen_problem_eval
func pbgen_problem_eval(h C.uintptr_t, theta *C.double, n, ndata C.int64_t,
	llh, chi2, logprior, grad, gradPrior, fim, hessPrior, res, sim, sigma *C.double) (ret *C.char) {
	defer recoverTo(&ret)
	p, err := lookup[*capi.Problem](h, "problem")
	if err != nil {
		return fail(err)
	}
	if theta == nil && n > 0 {
		return fail(fmt.Errorf("pbgen_problem_eval: NULL theta"))
	}
	if nd := len(p.Info().DataTimes); (res != nil || sim != nil || sigma != nil) && int(ndata) != nd {
		return fail(fmt.Errorf("pbgen_problem_eval: ndata = %d, but the problem has %d data", int64(ndata), nd))
	}
	out := &capi.Outputs{LLH: setOut(llh), Chi2: setOut(chi2), LogPrior: setOut(logprior),
		Grad: floats(grad, n), GradPrior: floats(gradPrior, n), FIM: floats(fim, n*n), HessPrior: floats(hessPrior, n),
		Res: floats(res, ndata), Sim: floats(sim, ndata), Sigma: floats(sigma, ndata)}
	th := floats(theta, n)
	if th == nil {
		th = []float64{}
	}
	return fail(p.Eval(th, out))
}

// pbgen_model_load reads an SBML model.
//
//export pbgen_model_load
func pbgen_model_load(path *C.char, out *C.uintptr_t) (ret *C.char) {
	defer recoverTo(&ret)
	if path == nil || out == nil {
		return fail(fmt.Errorf("pbgen_model_load: NULL path or handle pointer"))
	}
	m, err := capi.LoadModel(C.GoString(path))
	if err != nil {
		return fail(err)
	}
	*out = C.uintptr_t(cgo.NewHandle(m))
	return nil
}

// pbgen_model_compiled opens a model compiled into the library by name.
//
//export pbgen_model_compiled
func pbgen_model_compiled(name *C.char, out *C.uintptr_t) (ret *C.char) {
	defer recoverTo(&ret)
	if name == nil || out == nil {
		return fail(fmt.Errorf("pbgen_model_compiled: NULL name or handle pointer"))
	}
	m, err := capi.CompiledModel(C.GoString(name))
	if err != nil {
		return fail(err)
	}
	*out = C.uintptr_t(cgo.NewHandle(m))
	return nil
}

// pbgen_model_info writes the model's description as JSON
// (capi.ModelInfo) to *json, which the caller frees with pbgen_free.
//
//export pbgen_model_info
func pbgen_model_info(h C.uintptr_t, json **C.char) (ret *C.char) {
	defer recoverTo(&ret)
	if json == nil {
		return fail(fmt.Errorf("pbgen_model_info: NULL json pointer"))
	}
	m, err := lookup[*capi.Model](h, "model")
	if err != nil {
		return fail(err)
	}
	s, err := capi.InfoJSON(m.Info())
	if err != nil {
		return fail(err)
	}
	*json = C.CString(s)
	return nil
}

// pbgen_model_simulate solves the model (capi.Model.Simulate): nt output
// times ts, np parameters p, x0 NULL (the model's initial state) or nx
// values; x receives nx_out = nt*nx doubles, S (NULL with method "none")
// ns_out = nt*nx*np.
//
//export pbgen_model_simulate
func pbgen_model_simulate(h C.uintptr_t, ts *C.double, nt C.int64_t, p *C.double, np C.int64_t, x0 *C.double, nx C.int64_t,
	method *C.char, rtol, atol, t0 C.double, x *C.double, nxOut C.int64_t, s *C.double, nsOut C.int64_t) (ret *C.char) {
	defer recoverTo(&ret)
	m, err := lookup[*capi.Model](h, "model")
	if err != nil {
		return fail(err)
	}
	opt := &capi.SimOptions{RTol: float64(rtol), ATol: float64(atol), T0: float64(t0)}
	if method != nil {
		opt.Method = C.GoString(method)
	}
	pp := floats(p, np)
	if pp == nil {
		pp = []float64{}
	}
	return fail(m.Simulate(floats(ts, nt), pp, floats(x0, nx), opt, floats(x, nxOut), floats(s, nsOut)))
}

// pbgen_problem_time_eval runs n evaluations at theta (ntheta values) in
// a Go loop inside the library (llh, with grad the gradient, with fim the
// FIM too) and writes the process CPU seconds per evaluation to
// *seconds: the Go side of the overhead measurement
// (python/tests/bench_overhead.py).
//
//export pbgen_problem_time_eval
func pbgen_problem_time_eval(h C.uintptr_t, theta *C.double, ntheta, n C.int64_t, grad, fim C.int, seconds *C.double) (ret *C.char) {
	defer recoverTo(&ret)
	p, err := lookup[*capi.Problem](h, "problem")
	if err != nil {
		return fail(err)
	}
	if seconds == nil {
		return fail(fmt.Errorf("pbgen_problem_time_eval: NULL seconds"))
	}
	th := floats(theta, ntheta)
	if th == nil {
		th = []float64{}
	}
	s, err := p.TimeEval(th, int(n), grad != 0, fim != 0)
	if err != nil {
		return fail(err)
	}
	*seconds = C.double(s)
	return nil
}

// pbgen_problem_sample runs MCMC on the problem's posterior
// (capi.Problem.Sample): sampler "smmala", "mala" or "rwm" (NULL:
// smmala), init "prior" or "nominal" (NULL: prior). draws receives
// chains*samples*dim doubles (ndraws), log_post chains*samples
// (nlogpost), accept chains (the acceptance rate of each chain after
// warm-up).
//
//export pbgen_problem_sample
func pbgen_problem_sample(h C.uintptr_t, sampler *C.char, chains, warmup, samples C.int64_t, seed C.uint64_t, init *C.char,
	draws *C.double, ndraws C.int64_t, logPost *C.double, nlogpost C.int64_t, accept *C.double) (ret *C.char) {
	defer recoverTo(&ret)
	p, err := lookup[*capi.Problem](h, "problem")
	if err != nil {
		return fail(err)
	}
	opt := &capi.SampleOptions{Chains: int(chains), Warmup: int(warmup), Samples: int(samples), Seed: uint64(seed)}
	if sampler != nil {
		opt.Sampler = C.GoString(sampler)
	}
	if init != nil {
		opt.Init = C.GoString(init)
	}
	if draws == nil || logPost == nil || accept == nil {
		return fail(fmt.Errorf("pbgen_problem_sample: NULL output buffer"))
	}
	acc, err := p.Sample(opt, floats(draws, ndraws), floats(logPost, nlogpost))
	if err != nil {
		return fail(err)
	}
	copy(floats(accept, chains), acc)
	return nil
}
