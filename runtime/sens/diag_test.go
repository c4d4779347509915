package sens

import (
	"fmt"
	"math"
	"testing"
)

func relFroAt(got, ref *Result, k int) float64 {
	var d, n float64
	r := ref.SAt(k)
	for i, x := range got.SAt(k) {
		d += (x - r[i]) * (x - r[i])
		n += r[i] * r[i]
	}
	return math.Sqrt(d / n)
}

func TestDiag(t *testing.T) {
	if !*measure {
		t.Skip()
	}
	for _, c := range measCases()[:2] {
		ref, _, _ := timeSolve(c.m, c, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
		for _, v := range []struct {
			n string
			o Options
		}{
			{"PBSR end tightS", Options{Method: PBSR, ExpStep: ExpEndpoint, SensRTol: 1e-9, SensATol: 1e-12, MaxDepth: 12}},
			{"PBSR end", Options{Method: PBSR, ExpStep: ExpEndpoint}},
			{"Exp end", Options{Method: Exp, ExpStep: ExpEndpoint}},
			{"Exp end odetight", Options{Method: Exp, ExpStep: ExpEndpoint, ODE: odeSettings{RTol: 1e-9, ATol: 1e-11}}},
			{"PBSR end odetight", Options{Method: PBSR, ExpStep: ExpEndpoint, ODE: odeSettings{RTol: 1e-9, ATol: 1e-11}}},
			{"PBSR magnus odetight", Options{Method: PBSR, ODE: odeSettings{RTol: 1e-9, ATol: 1e-11}}},
			{"FS errcon", Options{Method: FS, ErrCon: true}},
		} {
			o := v.o
			o.RTol, o.ATol = c.rtol, c.atol
			r, d, _ := timeSolve(c.m, c, &o)
			fmt.Printf("%s %-22s %7.2f ms err %.2e |", c.name, v.n, float64(d.Microseconds())/1000, maxRelFro(r, ref))
			for _, k := range []int{1, 2, 4, 8, 16, 32, 64, 128, 300, 600} {
				fmt.Printf(" %.1e", relFroAt(r, ref, k))
			}
			fmt.Println()
		}
	}
}
