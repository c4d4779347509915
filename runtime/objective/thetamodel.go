package objective

import (
	"fmt"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// thetaModel presents a model to runtime/sens with the estimated
// parameters theta (of one experiment phase) as its sensitivity
// parameters: f(t, x, p(theta)), with df/dtheta = Jp dp/dtheta.
//
// Why not the model's own parameter columns: after pre-equilibration the
// simulation starts from x0(theta) that depends on thetas the simulation
// condition may not contain (a parameter set only in the pre-equilibration
// condition), and S(t) = Phi(t) S0 + ... can carry such a direction only in
// a column of its own. With theta columns every path (pre-equilibration,
// re-initialisation, the simulation condition, several model parameters
// mapped to one theta) is the column of that theta, and the number of
// columns is the number of thetas reaching the dynamics, not of model
// parameters.
//
// Each condition maps a model parameter to at most one theta (Value), so
// dp/dtheta has one entry per mapped parameter: dp[j] in column col[j].
// The structure (col) is fixed per instance; p and dp are set before each
// solve. A thetaModel therefore has mutable state and belongs to one
// sens.Solver (one worker): it is not the shareable model.Model of the
// contract, which is why it is unexported.
type thetaModel struct {
	m      model.Model
	nx, np int
	nc     int
	names  []string
	col    []int          // per model parameter: its column, or -1
	jpPat  *model.Pattern // nx x nc
	jxPat  *model.Pattern // the model's, fetched once
	jpCol  []int          // the model's Jp column indices, fetched once
	jpDst  []int          // per entry of the model's Jp: index into our values, or -1
	jpIn   []float64      // the model's Jp values (of the mapped columns)
	jpCols model.JpFunc   // the model's Jp of the mapped columns only
	s0In   []float64      // the model's dx0/dp, nx x np
	p, dp  []float64      // current model parameters and dp_j/dtheta_col[j]
}

func newThetaModel(m model.Model, col []int, nc int) *thetaModel {
	nx, np := model.NumStates(m), model.NumParams(m)
	tm := &thetaModel{m: m, nx: nx, np: np, nc: nc, col: col}
	tm.names = make([]string, nc)
	for c := range tm.names {
		tm.names[c] = fmt.Sprintf("theta%d", c)
	}
	// Patterns are fetched once: a model may return a fresh copy per
	// call (interp does), which Jp and the steady-state code would
	// otherwise allocate at every evaluation.
	in := m.JpPattern()
	tm.jpCol = in.ColIdx
	tm.jxPat = m.JxPattern()
	tm.jpPat, tm.jpDst = sparse.MapCols(in, col, nc)
	tm.jpIn = make([]float64, in.NNZ())
	// Jp of the mapped columns alone: a problem estimates a few of the
	// model's parameters, and the other columns' values MapAdd would drop
	// (SalazarCavazos_MBoC2020: 204 of 804 entries).
	var mapped []int
	for j, c := range col {
		if c >= 0 {
			mapped = append(mapped, j)
		}
	}
	tm.jpCols = model.JpColumnsOf(m, mapped)
	tm.s0In = make([]float64, nx*np)
	return tm
}

func (tm *thetaModel) Name() string                               { return tm.m.Name() }
func (tm *thetaModel) StateNames() []string                       { return tm.m.StateNames() }
func (tm *thetaModel) ParamNames() []string                       { return tm.names }
func (tm *thetaModel) DefaultParams(dst []float64)                { clear(dst) }
func (tm *thetaModel) InitialState(dst, _ []float64)              { tm.m.InitialState(dst, tm.p) }
func (tm *thetaModel) JxPattern() *model.Pattern                  { return tm.jxPat }
func (tm *thetaModel) JpPattern() *model.Pattern                  { return tm.jpPat }
func (tm *thetaModel) F(dst []float64, t float64, x, _ []float64) { tm.m.F(dst, t, x, tm.p) }
func (tm *thetaModel) Jx(dst []float64, t float64, x, _ []float64) {
	tm.m.Jx(dst, t, x, tm.p)
}

// InitialSens writes dx0/dtheta = dx0/dp dp/dtheta (nx x nc).
func (tm *thetaModel) InitialSens(dst, _ []float64) {
	tm.m.InitialSens(tm.s0In, tm.p)
	clear(dst)
	nc, np := tm.nc, tm.np
	for i := 0; i < tm.nx; i++ {
		row := tm.s0In[i*np : (i+1)*np]
		for j, v := range row {
			if c := tm.col[j]; c >= 0 && v != 0 {
				dst[i*nc+c] += v * tm.dp[j]
			}
		}
	}
}

// Jp writes df/dtheta in jpPat order.
func (tm *thetaModel) Jp(dst []float64, t float64, x, _ []float64) {
	tm.jpCols(tm.jpIn, t, x, tm.p)
	sparse.MapAdd(dst, tm.jpIn, tm.jpDst, tm.jpCol, tm.dp)
}
