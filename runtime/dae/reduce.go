package dae

// Functions of the full state (observables, assignments): a caller that
// evaluates a function phi(t, x, z, p) of the wrapped model's states needs
// z solved, and for its derivatives the chain rule through z(t, x, p).
// runtime/objective does this for the observables and assignment sets of
// an estimation problem on a model with algebraic variables, per datum,
// so neither call allocates.

// FullState writes (x, z(t, x, p)) into dst (length: the wrapped model's
// states) and reports whether z could be solved (dst is NaN-filled when
// not).
func (r *Model) FullState(dst []float64, t float64, x, p []float64) bool {
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dst)
		return false
	}
	copy(dst, w.full)
	return true
}

// ReduceRows turns the partial derivatives of rows functions
// phi_i(t, x, z, p) at (t, x, z(t, x, p), p) into the total derivatives of
// phi_i(t, x, z(t, x, p), p): dFull (rows x the wrapped model's states,
// row-major) holds d phi_i/d(x, z), dP (rows x NumParams) d phi_i/dp on
// entry and the total derivative on return, and dX (rows x nx) receives
// the total derivative in x:
//
//	dX_i = phi_x + phi_z Zx,   dP_i += phi_z Zp,   Zx = -g_z^{-1} g_x, Zp = -g_z^{-1} g_p.
//
// Rows without a derivative in z cost a copy; the others share one
// solve of z and two of g_z (against g_x and g_p). It reports false (dX
// and dP NaN-filled) when z cannot be solved. It allocates nothing.
func (r *Model) ReduceRows(rows int, t float64, x, p, dFull, dX, dP []float64) bool {
	nx, n, np := r.nx, r.n, r.np
	anyZ := false
	for i := 0; i < rows; i++ {
		row := dFull[i*n : (i+1)*n]
		copy(dX[i*nx:(i+1)*nx], row[:nx])
		for _, v := range row[nx:] {
			if v != 0 {
				anyZ = true
			}
		}
	}
	if !anyZ {
		return true
	}
	w := r.get()
	defer r.put(w)
	if !r.solve(w, t, x, p) {
		nanFill(dX[:rows*nx])
		nanFill(dP[:rows*np])
		return false
	}
	// W = g_z^{-1} g_x; dX_i -= phi_z W.
	W := r.gInvTo(w, nx, r.blk.gxRow, r.blk.gxCol, r.blk.gxIdx, w.jxv)
	r.subPhiZ(rows, dFull, dX, W, nx)
	r.in.Jp(w.jpv, t, w.full, p)
	W = r.gInvTo(w, np, r.blk.gpRow, r.blk.gpCol, r.blk.gpIdx, w.jpv)
	r.subPhiZ(rows, dFull, dP, W, np)
	return true
}

// subPhiZ subtracts phi_z W (W nz x ncols, row-major) from each of the
// rows of dst (ncols wide), phi_z being the z part of dFull's rows.
func (r *Model) subPhiZ(rows int, dFull, dst, W []float64, ncols int) {
	for i := 0; i < rows; i++ {
		phiZ := dFull[i*r.n+r.nx : (i+1)*r.n]
		out := dst[i*ncols : (i+1)*ncols]
		for k, a := range phiZ {
			if a == 0 {
				continue
			}
			wk := W[k*ncols : (k+1)*ncols]
			for j, v := range wk {
				out[j] -= a * v
			}
		}
	}
}
