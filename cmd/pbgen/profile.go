package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pbgen/pbgen/fit"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// pbgen profile computes profile likelihoods (profile posteriors, with
// priors) of a PEtab problem's estimated parameters through the best
// point of a pbgen fit, and their 95% intervals.

const profileSynopsis = "pbgen profile -fit DIR/fit.json [flags] problem.yaml"

// cmdProfile is pbgen profile.
func cmdProfile(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pbgen profile", stderr, profileSynopsis)
	fitFile := fs.String("fit", "", "the `fit.json` of a pbgen fit -o DIR of this problem: the profiles go through its best point")
	params := fs.String("params", "", "comma-separated `ids` of the parameters to profile (default all estimated)")
	jobs := fs.Int("j", 0, "profiles computed at once, each with its own objective (0: the number of CPUs)")
	method := fs.String("method", "fs", "sensitivity `method`: fs, pbsr, pbs or exp")
	hessian := fs.String("hessian", "fim", "Hessian approximation of the minimisations: fim, bfgs, sr1 or hybrid")
	threshold := fs.Float64("threshold", 1.92, "rise of the negative log posterior that bounds the interval (1.92: 95%, chi-squared with 1 degree of freedom)")
	maxPoints := fs.Int("maxpoints", 100, "points per side of each profile")
	outDir := fs.String("o", "", "write profiles.tsv and intervals.tsv into `dir`")
	plotDir := fs.String("plot", "", "write profile_<id>.png into `dir`")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		return &usageError{cmd: "pbgen profile", msg: fmt.Sprintf(format, a...), synopsis: "usage: " + profileSynopsis}
	}
	m, err := sens.ParseMethod(*method)
	if err != nil {
		return usage("-method %q: want fs, pbsr, pbs or exp", *method)
	}
	h, ok := fit.ParseHessian(*hessian)
	if !ok {
		return usage("-hessian %q: want fim, bfgs, sr1 or hybrid", *hessian)
	}
	switch {
	case *fitFile == "":
		return usage("-fit is required: the profiles start from a fit's best point (pbgen fit -o DIR writes DIR/fit.json)")
	case *jobs < 0:
		return usage("-j %d: want 0 (the number of CPUs) or more", *jobs)
	case !(*threshold > 0) || math.IsInf(*threshold, 0):
		return usage("-threshold %g: want a finite positive value", *threshold)
	case *maxPoints < 1:
		return usage("-maxpoints %d: want at least 1", *maxPoints)
	}
	p, err := petab.Load(fs.Arg(0))
	if err != nil {
		return listErrors(stderr, err)
	}
	best, names, err := readBest(*fitFile, p)
	if err != nil {
		return err
	}
	which, err := profileIndices(*params, names)
	if err != nil {
		return usage("-params: %v", err)
	}
	workers := *jobs
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	fopt := &petab.FitOptions{Method: m, FIM: h == fit.FIM || h == fit.Hybrid}
	popt := &fit.ProfileOptions{Options: &fit.Options{Hessian: h}, Threshold: *threshold, MaxPoints: *maxPoints}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := runProfiles(ctx, p, fopt, best, which, popt, workers)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	pr := &profileReport{p: p, names: names, res: res, threshold: *threshold}
	pr.intervals(stdout)
	if *outDir != "" {
		if err := pr.write(*outDir); err != nil {
			return err
		}
	}
	if *plotDir != "" {
		return pr.plots(*plotDir)
	}
	return nil
}

// readBest reads the best point of a pbgen fit's fit.json and checks it
// is for p's estimated parameters.
func readBest(path string, p *petab.Problem) ([]float64, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("-fit: %v", err)
	}
	var doc fitJSON
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("-fit %s: %v (not a pbgen fit fit.json?)", path, err)
	}
	if doc.Best == nil || len(doc.Best.X) != len(doc.Parameters) {
		return nil, nil, fmt.Errorf("-fit %s: no best start with %d parameter values", path, len(doc.Parameters))
	}
	if ids := p.EstimatedIDs(); !slices.Equal(ids, doc.Parameters) {
		return nil, nil, fmt.Errorf("-fit %s: parameters %v, but %s estimates %v", path, doc.Parameters, p.Path, ids)
	}
	return doc.Best.X, doc.Parameters, nil
}

// profileIndices maps -params to indices (all when empty).
func profileIndices(list string, names []string) ([]int, error) {
	if list == "" {
		idx := make([]int, len(names))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	var idx []int
	for _, id := range strings.Split(list, ",") {
		k := slices.Index(names, strings.TrimSpace(id))
		if k < 0 {
			return nil, fmt.Errorf("%q is not an estimated parameter (%s)", id, strings.Join(names, ", "))
		}
		idx = append(idx, k)
	}
	return idx, nil
}

// runProfiles computes the profiles of which on workers goroutines, each
// profile with an objective of its own.
func runProfiles(ctx context.Context, p *petab.Problem, fopt *petab.FitOptions, best []float64, which []int, popt *fit.ProfileOptions, workers int) ([]*fit.ProfileResult, error) {
	res := make([]*fit.ProfileResult, len(which))
	errs := make([]error, len(which))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(which)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				o, err := p.FitObjective(fopt)
				if err != nil {
					errs[j] = err
					continue
				}
				res[j], errs[j] = fit.Profile(ctx, o, best, which[j], popt)
				o.Close()
			}
		}()
	}
	for j := range which {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	return res, errors.Join(errs...)
}

// profileReport is a finished pbgen profile.
type profileReport struct {
	p         *petab.Problem
	names     []string
	res       []*fit.ProfileResult
	threshold float64
}

func (pr *profileReport) scale(k int) objective.Scale {
	return pr.p.Objective.Params[pr.p.Objective.Estimated[k]].Scale
}

// optimum returns the profile's lowest point.
func optimum(r *fit.ProfileResult) fit.ProfilePoint {
	best := r.Points[0]
	for _, q := range r.Points {
		if q.F < best.F {
			best = q
		}
	}
	return best
}

// intervals prints each parameter's estimate and interval, on its scale
// and linear; "-inf"/"inf" where the profile stays below the threshold
// (not identifiable on that side within the bounds).
func (pr *profileReport) intervals(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "parameter\tscale\testimate\tlower\tupper\tlinear estimate\tlinear lower\tlinear upper\tpoints\n")
	for _, r := range pr.res {
		s := pr.scale(r.Index)
		o := optimum(r)
		lin := func(v float64) float64 { x, _ := objective.FromScale(s, v); return x }
		fmt.Fprintf(tw, "%s\t%v\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%d\n", pr.names[r.Index], s, o.Value, r.Lower, r.Upper, lin(o.Value), lin(r.Lower), lin(r.Upper), len(r.Points))
	}
	tw.Flush()
}

// write writes profiles.tsv (every point) and intervals.tsv.
func (pr *profileReport) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	err := writeFile(filepath.Join(dir, "profiles.tsv"), func(w io.Writer) error {
		fmt.Fprintln(w, "parameter\tvalue\tlog_posterior\tdelta\tstatus")
		for _, r := range pr.res {
			f0 := optimum(r).F
			for _, q := range r.Points {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\n", pr.names[r.Index], g(q.Value), g(-q.F), g(q.F-f0), q.Status)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "intervals.tsv"), func(w io.Writer) error {
		fmt.Fprintln(w, "parameter\tscale\testimate\tlower\tupper")
		for _, r := range pr.res {
			fmt.Fprintf(w, "%s\t%v\t%s\t%s\t%s\n", pr.names[r.Index], pr.scale(r.Index), g(optimum(r).Value), g(r.Lower), g(r.Upper))
		}
		return nil
	})
}

// plots draws each profile: the rise of the negative log posterior over
// its minimum against the parameter (on its scale), with the threshold.
func (pr *profileReport) plots(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range pr.res {
		f0 := optimum(r).F
		xy := make(plotter.XYs, len(r.Points))
		for i, q := range r.Points {
			xy[i] = plotter.XY{X: q.Value, Y: q.F - f0}
		}
		pl := plot.New()
		id := pr.names[r.Index]
		pl.Title.Text = fmt.Sprintf("profile of %s", id)
		pl.X.Label.Text = fmt.Sprintf("%s (%v)", id, pr.scale(r.Index))
		pl.Y.Label.Text = "-log posterior - minimum"
		line, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		pts.Shape = draw.CircleGlyph{}
		pl.Add(line, pts)
		thr := plotter.NewFunction(func(float64) float64 { return pr.threshold })
		thr.Color = color.RGBA{200, 30, 30, 255}
		thr.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		pl.Add(thr)
		pl.Legend.Add(fmt.Sprintf("%g (95%%)", pr.threshold), thr)
		if err := pl.Save(6*vg.Inch, 4*vg.Inch, filepath.Join(dir, "profile_"+unsafeName.ReplaceAllString(id, "_")+".png")); err != nil {
			return err
		}
	}
	return nil
}
