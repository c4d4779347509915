//go:build cvodes

package cvodes_test

import (
	"fmt"

	"github.com/pbgen/pbgen/internal/cvodes"
	"github.com/pbgen/pbgen/runtime/model"
)

// decay is x' = -k x with x(0) = 1: x = exp(-k t), dx/dk = -t exp(-k t).
type decay struct{}

func (decay) Name() string                  { return "decay" }
func (decay) StateNames() []string          { return []string{"x"} }
func (decay) ParamNames() []string          { return []string{"k"} }
func (decay) DefaultParams(dst []float64)   { dst[0] = 0.5 }
func (decay) InitialState(dst, p []float64) { dst[0] = 1 }
func (decay) InitialSens(dst, p []float64)  { dst[0] = 0 }
func (decay) F(dst []float64, t float64, x, p []float64) {
	dst[0] = -p[0] * x[0]
}
func (decay) JxPattern() *model.Pattern { return &one }
func (decay) Jx(dst []float64, t float64, x, p []float64) {
	dst[0] = -p[0]
}
func (decay) JpPattern() *model.Pattern { return &one }
func (decay) Jp(dst []float64, t float64, x, p []float64) {
	dst[0] = -x[0]
}

var one = model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}

func Example() {
	s, err := cvodes.New(decay{}, cvodes.Options{RTol: 1e-8, ATol: 1e-10, Sens: true, ErrCon: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	p, x0 := []float64{0.5}, []float64{1}
	tout := []float64{0, 1, 2}
	x := make([]float64, len(tout))    // nx = 1 per output
	sens := make([]float64, len(tout)) // nx*np = 1 per output
	if err := s.Solve(p, x0, 0, tout, x, sens); err != nil {
		fmt.Println(err)
		return
	}
	for k, t := range tout {
		fmt.Printf("t=%g x=%.6f dx/dk=%.6f\n", t, x[k], sens[k])
	}
	// Output:
	// t=0 x=1.000000 dx/dk=0.000000
	// t=1 x=0.606531 dx/dk=-0.606531
	// t=2 x=0.367879 dx/dk=-0.735759
}
