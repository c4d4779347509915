package sparse

import "github.com/pbgen/pbgen/runtime/model"

// AMD returns a fill-reducing symmetric ordering of the square pattern p:
// perm[k] is the row and column of p that comes k-th. It orders the graph
// of p + p^T (the diagonal ignored) by approximate minimum degree, after
// P. R. Amestoy, T. A. Davis and I. S. Duff, "An approximate minimum
// degree ordering algorithm", SIAM J. Matrix Anal. Appl. 17(4), 1996:
// elimination runs on the quotient graph (eliminated nodes become
// elements whose variable lists stand for the cliques they created, so
// the graph never grows), and the degree of a variable touched by an
// elimination is replaced by the cheap upper bound of that paper,
//
//	d_i = min(n-k-1, d_i + |L_p \ i|, |A_i \ i| + |L_p \ i| + sum_e |L_e \ L_p|),
//
// with |L_e \ L_p| counted for all elements e at once by one pass over the
// variables of the new element L_p. Elements whose variables all lie in
// L_p are absorbed (aggressive absorption). Supervariable detection and
// dense-row handling, which make AMD fast on very large graphs, are left
// out: on the reaction networks here (a few thousand states, about five
// entries per row) the ordering takes well under the time of one
// numerical factorisation, and it is computed once per pattern.
//
// The ordering is deterministic: ties go to the most recently updated
// variable of minimum degree (initially the lowest index).
// p must be square; it is not modified.
func AMD(p *model.Pattern) []int {
	if p.Rows != p.Cols {
		panic("sparse: AMD of a non-square pattern")
	}
	n := p.Rows
	perm := make([]int, 0, n)
	if n == 0 {
		return perm
	}
	// Adjacency of p + p^T without the diagonal, as sorted unique lists.
	cnt := make([]int, n)
	for i := 0; i < n; i++ {
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			if j := p.ColIdx[k]; j != i {
				cnt[i]++
				cnt[j]++
			}
		}
	}
	adj := make([][]int, n) // A_i: variable neighbours
	for i := range adj {
		adj[i] = make([]int, 0, cnt[i])
	}
	for i := 0; i < n; i++ {
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			if j := p.ColIdx[k]; j != i {
				adj[i] = append(adj[i], j)
				adj[j] = append(adj[j], i)
			}
		}
	}
	mark := make([]int, n) // stamp per node
	stamp := 0
	for i := range adj { // remove duplicates (entries present in both p and p^T)
		stamp++
		a := adj[i][:0]
		for _, j := range adj[i] {
			if mark[j] != stamp {
				mark[j] = stamp
				a = append(a, j)
			}
		}
		adj[i] = a
	}

	elems := make([][]int, n) // E_i: elements adjacent to variable i
	lvars := make([][]int, n) // L_e: variables of element e (e = eliminated node)
	const (
		live = iota
		eliminated
		absorbed
	)
	state := make([]uint8, n)
	deg := make([]int, n)

	// Degree buckets: doubly linked lists, head[d] first node of degree d.
	head := make([]int, n)
	next := make([]int, n)
	prev := make([]int, n)
	for i := range head {
		head[i] = -1
	}
	insert := func(i int) {
		d := deg[i]
		next[i], prev[i] = head[d], -1
		if head[d] >= 0 {
			prev[head[d]] = i
		}
		head[d] = i
	}
	remove := func(i int) {
		if prev[i] >= 0 {
			next[prev[i]] = next[i]
		} else {
			head[deg[i]] = next[i]
		}
		if next[i] >= 0 {
			prev[next[i]] = prev[i]
		}
	}
	for i := n - 1; i >= 0; i-- { // reverse, so the lowest index is first
		deg[i] = len(adj[i])
		insert(i)
	}
	w := make([]int, n) // |L_e \ L_p| during an elimination, -1 unset
	for i := range w {
		w[i] = -1
	}
	mindeg := 0
	lp := make([]int, 0, n)
	for k := 0; k < n; k++ {
		for head[mindeg] < 0 {
			mindeg++
		}
		// The head of the list: the most recently inserted of minimum
		// degree (scanning the list for the lowest index would make the
		// ordering quadratic in n).
		piv := head[mindeg]
		remove(piv)
		state[piv] = eliminated
		perm = append(perm, piv)

		// L_p = (A_p ∪ union of L_e, e in E_p) \ {p}; the elements of E_p
		// are absorbed into p.
		stamp++
		mark[piv] = stamp
		lp = lp[:0]
		for _, j := range adj[piv] {
			if state[j] == live && mark[j] != stamp {
				mark[j] = stamp
				lp = append(lp, j)
			}
		}
		for _, e := range elems[piv] {
			if state[e] != eliminated {
				continue
			}
			for _, j := range lvars[e] {
				if state[j] == live && mark[j] != stamp {
					mark[j] = stamp
					lp = append(lp, j)
				}
			}
			state[e] = absorbed
			lvars[e] = nil
		}
		adj[piv], elems[piv] = nil, nil
		lvars[piv] = append([]int(nil), lp...)

		// |L_e \ L_p| for every element e adjacent to a variable of L_p.
		for _, i := range lp {
			for _, e := range elems[i] {
				if state[e] != eliminated {
					continue
				}
				if w[e] < 0 {
					w[e] = len(lvars[e])
				}
				w[e]--
			}
		}
		// New lists and approximate degrees of the variables of L_p.
		nrem := n - k - 1
		lpn := len(lp)
		for _, i := range lp {
			remove(i)
			// E_i: drop absorbed elements and those now inside L_p, add p.
			ext := 0
			es := elems[i][:0]
			for _, e := range elems[i] {
				if state[e] != eliminated {
					continue
				}
				if w[e] == 0 { // aggressive absorption: L_e is inside L_p
					state[e] = absorbed
					lvars[e] = nil
					continue
				}
				ext += w[e]
				es = append(es, e)
			}
			elems[i] = append(es, piv)
			// A_i: drop eliminated nodes and variables covered by L_p.
			as := adj[i][:0]
			for _, j := range adj[i] {
				if state[j] == live && mark[j] != stamp {
					as = append(as, j)
				}
			}
			adj[i] = as
			d := len(as) + lpn - 1 + ext
			if alt := deg[i] + lpn - 1; alt < d {
				d = alt
			}
			if nrem-1 < d {
				d = nrem - 1
			}
			if d < 0 {
				d = 0
			}
			deg[i] = d
			insert(i)
			if d < mindeg {
				mindeg = d
			}
		}
		for _, i := range lp { // reset w for the next elimination
			for _, e := range elems[i] {
				w[e] = -1
			}
		}
	}
	return perm
}
