package interp

import (
	"fmt"

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
}

var _ model.Delays = (*Model)(nil)

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
		dp.info = append(dp.info, model.DelayInfo{Name: d.Label, Constant: constant, Reads: reads})
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
	m.dl = dp
	return nil
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
