package interp

import (
	"fmt"
	"sync"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// dlProg holds the compiled delays of a model with csymbol delay: per
// delayed value its argument and delay (reading the delayed values before
// it) and its history. F, Jx, Jp and the outputs are compiled with the
// delayed values as inputs once for both paths: the plain methods of
// model.Model see them as NaN (model.Delays says why).
type dlProg struct {
	info            []model.DelayInfo
	expr, tau, hist []*symbolic.Compiled
	// Derivatives (model.DelaySens): df/dd in fdPat order, and per
	// delayed value the non-zero partials of its argument, delay and
	// history, each a program whose outputs scatter by grads.
	fd                 *symbolic.Compiled
	fdPat              *model.Pattern
	gExpr, gTau, gHist []*symbolic.Compiled
	pExpr, pTau, pHist [][]symbolic.Partial
	outs               sync.Pool // *[]float64, the outputs of a gradient program
}

var (
	_ model.Delays    = (*Model)(nil)
	_ model.DelaySens = (*Model)(nil)
)

// delayNames are the names of sys's delayed values, in order (nil when
// it has none, which compiles as before).
func delayNames(sys *symbolic.System) []string {
	var out []string
	for _, d := range sys.ODE.Delays {
		out = append(out, d.Name)
	}
	return out
}

func (m *Model) compileDelays(names []string) error {
	o := m.sys.ODE
	if len(o.Delays) == 0 {
		return nil
	}
	dp := &dlProg{}
	index := o.DelayIndex()
	compile := func(n *symbolic.Node, states, delays []string, what string, k int) (*symbolic.Compiled, error) {
		c, err := symbolic.CompileDelayed([]*symbolic.Node{n}, states, m.paramNames, delays)
		if err != nil {
			return nil, fmt.Errorf("interp: model %q: %s of %s: %w", o.Name, what, o.Delays[k].Label, err)
		}
		m.nscratch = max(m.nscratch, c.ScratchLen())
		return c, nil
	}
	for k, d := range o.Delays {
		constant, reads := o.DelayShape(k, index)
		hj, hm, aj, am := o.DelayJumps(k)
		dp.info = append(dp.info, model.DelayInfo{Name: d.Label, Constant: constant, Reads: reads,
			HistoryJumps: hj, HistoryJumpsMove: hm, ArgJumps: aj, ArgJumpsMove: am})
		e, err := compile(d.Expr, m.stateNames, names[:k], "argument", k)
		if err != nil {
			return err
		}
		tau, err := compile(d.Tau, m.stateNames, names[:k], "delay", k)
		if err != nil {
			return err
		}
		h, err := compile(d.History, nil, nil, "history", k)
		if err != nil {
			return err
		}
		dp.expr, dp.tau, dp.hist = append(dp.expr, e), append(dp.tau, tau), append(dp.hist, h)
	}
	dd, err := m.sys.DelayDerivs()
	if err != nil {
		return fmt.Errorf("interp: %w", err)
	}
	if dp.fd, err = symbolic.CompileDelayed(symbolic.Exprs(dd.Fd), m.stateNames, m.paramNames, names); err != nil {
		return fmt.Errorf("interp: model %q: df/dd: %w", o.Name, err)
	}
	m.nscratch = max(m.nscratch, dp.fd.ScratchLen())
	dp.fdPat = entriesPattern(dd.Fd, m.nx, len(o.Delays))
	nout := 1
	for k := range o.Delays {
		for _, g := range []struct {
			ps     []symbolic.Partial
			states []string
			delays []string
			dst    *[]*symbolic.Compiled
			what   string
		}{
			{dd.Arg[k], m.stateNames, names[:k], &dp.gExpr, "derivatives of the argument"},
			{dd.Tau[k], m.stateNames, names[:k], &dp.gTau, "derivatives of the delay"},
			{dd.History[k], nil, nil, &dp.gHist, "derivatives of the history"},
		} {
			roots := make([]*symbolic.Node, len(g.ps))
			for i, p := range g.ps {
				roots[i] = p.Expr
			}
			c, err := symbolic.CompileDelayed(roots, g.states, m.paramNames, g.delays)
			if err != nil {
				return fmt.Errorf("interp: model %q: %s of %s: %w", o.Name, g.what, o.Delays[k].Label, err)
			}
			m.nscratch = max(m.nscratch, c.ScratchLen())
			*g.dst = append(*g.dst, c)
			nout = max(nout, len(roots))
		}
		dp.pExpr, dp.pTau, dp.pHist = append(dp.pExpr, dd.Arg[k]), append(dp.pTau, dd.Tau[k]), append(dp.pHist, dd.History[k])
	}
	dp.outs.New = func() any { b := make([]float64, nout); return &b }
	m.dl = dp
	return nil
}

// entriesPattern is the CSR pattern of es (sorted by row, then column).
func entriesPattern(es []symbolic.Entry, rows, cols int) *model.Pattern {
	p := &model.Pattern{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}
	for _, e := range es {
		p.ColIdx = append(p.ColIdx, e.Col)
		p.RowPtr[e.Row+1]++
	}
	for i := 0; i < rows; i++ {
		p.RowPtr[i+1] += p.RowPtr[i]
	}
	return p
}

// JpDelayed writes df/dp at (t, x, p, d), d fixed, into dst.
func (m *Model) JpDelayed(dst []float64, t float64, x, p, d []float64) {
	m.check(dst, m.jp.NNZ(), x, p, "JpDelayed")
	m.evalD(m.fjp, dst, t, x, p, d)
}

// FdPattern is the sparsity pattern of df/dd (NumStates x NumDelays).
func (m *Model) FdPattern() *model.Pattern { return clonePattern(m.dl.fdPat) }

// FdDelayed writes df/dd at (t, x, p, d) in FdPattern order into dst.
func (m *Model) FdDelayed(dst []float64, t float64, x, p, d []float64) {
	m.check(dst, m.dl.fdPat.NNZ(), x, p, "FdDelayed")
	m.evalD(m.dl.fd, dst, t, x, p, d)
}

// grad evaluates the partials ps (program c) at (t, x, p, d) and
// scatters them into dx, dp and dd (each cleared first; nil when the
// kind cannot occur), returning the partial in t.
func (m *Model) grad(c *symbolic.Compiled, ps []symbolic.Partial, t float64, x, p, d, dx, dp, dd []float64) float64 {
	clear(dx)
	clear(dp)
	clear(dd)
	s := m.pool.Get().(*scratch)
	ob := m.dl.outs.Get().(*[]float64)
	out := (*ob)[:len(ps)]
	c.EvalDelayedTo(out, s.slots, t, x, p, d)
	var gt float64
	for i, q := range ps {
		switch q.Kind {
		case symbolic.KindTime:
			gt = out[i]
		case symbolic.KindState:
			dx[q.Index] = out[i]
		case symbolic.KindParam:
			dp[q.Index] = out[i]
		case symbolic.KindDelay:
			dd[q.Index] = out[i]
		}
	}
	m.dl.outs.Put(ob)
	m.pool.Put(s)
	return gt
}

// DelayArgGrad writes the partial derivatives of the argument of delayed
// value k at (t, x, p, d[:k]) into dx, dp and dd and returns the one in t.
func (m *Model) DelayArgGrad(k int, t float64, x, p, d, dx, dp, dd []float64) float64 {
	if len(x) != m.nx || len(p) != m.np || len(d) < k || len(dx) != m.nx || len(dp) != m.np || len(dd) != m.NumDelays() {
		panic("interp: DelayArgGrad: argument length mismatch")
	}
	return m.grad(m.dl.gExpr[k], m.dl.pExpr[k], t, x, p, d[:k], dx, dp, dd)
}

// DelayTimeGrad writes the derivative of delay k in p at (t, x, p, d[:k])
// into dp. (Partials of a delay in the state, time or delayed values
// are not part of model.DelaySens: SolveSens refuses such delays.)
func (m *Model) DelayTimeGrad(k int, t float64, x, p, d, dp []float64) {
	if len(x) != m.nx || len(p) != m.np || len(d) < k || len(dp) != m.np {
		panic("interp: DelayTimeGrad: argument length mismatch")
	}
	clear(dp)
	s := m.pool.Get().(*scratch)
	ob := m.dl.outs.Get().(*[]float64)
	ps := m.dl.pTau[k]
	out := (*ob)[:len(ps)]
	m.dl.gTau[k].EvalDelayedTo(out, s.slots, t, x, p, d[:k])
	for i, q := range ps {
		if q.Kind == symbolic.KindParam {
			dp[q.Index] = out[i]
		}
	}
	m.dl.outs.Put(ob)
	m.pool.Put(s)
}

// DelayHistoryGrad writes the derivative in p of the history of delayed
// value k at t into dp and returns the one in t.
func (m *Model) DelayHistoryGrad(k int, t float64, p, dp []float64) float64 {
	if len(p) != m.np || len(dp) != m.np {
		panic("interp: DelayHistoryGrad: argument length mismatch")
	}
	return m.grad(m.dl.gHist[k], m.dl.pHist[k], t, nil, p, nil, nil, dp, nil)
}

// NumDelays is the number of delayed values (csymbol delay).
func (m *Model) NumDelays() int {
	if m.dl == nil {
		return 0
	}
	return len(m.dl.info)
}

// DelayInfo describes delayed value k.
func (m *Model) DelayInfo(k int) model.DelayInfo { return m.dl.info[k] }

// eval1 runs a single-value program.
func (m *Model) eval1(c *symbolic.Compiled, t float64, x, p, d []float64) float64 {
	s := m.pool.Get().(*scratch)
	c.EvalDelayedTo(s.one[:], s.slots, t, x, p, d)
	v := s.one[0]
	m.pool.Put(s)
	return v
}

// DelayArg is the argument of delayed value k at (t, x, p), d[:k] the
// delayed values before it.
func (m *Model) DelayArg(k int, t float64, x, p, d []float64) float64 {
	return m.eval1(m.dl.expr[k], t, x, p, d[:k])
}

// DelayTime is the delay of delayed value k at (t, x, p, d[:k]).
func (m *Model) DelayTime(k int, t float64, x, p, d []float64) float64 {
	return m.eval1(m.dl.tau[k], t, x, p, d[:k])
}

// DelayHistory is the argument of delayed value k at a time t before the
// start.
func (m *Model) DelayHistory(k int, t float64, p []float64) float64 {
	return m.eval1(m.dl.hist[k], t, nil, p, nil)
}

// FDelayed writes f(t, x, p) with the delayed values d into dst.
func (m *Model) FDelayed(dst []float64, t float64, x, p, d []float64) {
	m.check(dst, m.nx, x, p, "FDelayed")
	m.evalD(m.f, dst, t, x, p, d)
}

// JxDelayed writes df/dx at (t, x, p, d), d fixed, into dst.
func (m *Model) JxDelayed(dst []float64, t float64, x, p, d []float64) {
	m.check(dst, m.jx.NNZ(), x, p, "JxDelayed")
	m.evalD(m.fjx, dst, t, x, p, d)
}

// OutputsDelayedTo writes the outputs at (t, x, p, d) into dst.
func (m *Model) OutputsDelayedTo(dst []float64, t float64, x, p, d []float64) {
	m.check(dst, len(m.outNames), x, p, "OutputsDelayedTo")
	m.evalD(m.out, dst, t, x, p, d)
}

func (m *Model) evalD(c *symbolic.Compiled, dst []float64, t float64, x, p, d []float64) {
	if len(d) != m.NumDelays() {
		panic("interp: delayed values length mismatch")
	}
	s := m.pool.Get().(*scratch)
	c.EvalDelayedTo(dst, s.slots, t, x, p, d)
	m.pool.Put(s)
}
