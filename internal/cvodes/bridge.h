//go:build cvodes

// bridge.h declares the C side of package cvodes: one pbcv value owns every
// SUNDIALS object of a Solver, and the trampolines that CVODES calls forward
// to the Go functions exported in callbacks.go.

#ifndef PBGEN_CVODES_BRIDGE_H
#define PBGEN_CVODES_BRIDGE_H

#include <stdint.h>
#include <cvodes/cvodes.h>
#include <cvodes/cvodes_ls.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

typedef struct pbcv {
	SUNContext ctx;
	void *mem;
	N_Vector y;
	N_Vector *yS;
	SUNMatrix A;
	SUNLinearSolver LS;
	SUNNonlinearSolver NLS;    /* CV_ADAMS: fixed-point iteration of x */
	SUNNonlinearSolver NLSS;   /* CV_ADAMS: staggered fixed point of S */
	int nx;
	int ns;
	long nnz;             /* > 0: sparse CSR matrix with KLU, else dense */
	uintptr_t handle;     /* cgo.Handle of the Go Solver */
	double **ys_ptrs;     /* ns data pointers of yS, filled per fS call */
	double **ysdot_ptrs;  /* ns data pointers of ySdot */
	const char *where;    /* SUNDIALS function that failed last */
	int kfail;            /* output index pbcv_solve failed at, or -1 */
	double tcur;          /* time reached by pbcv_solve */
	int err_code;         /* error_code of the last CVODES error message */
	char err_msg[512];    /* the last CVODES error message */
} pbcv;

/* Indices of the counters written by pbcv_stats. */
enum {
	PBCV_NST,
	PBCV_NFE,
	PBCV_NJE,
	PBCV_NSETUPS,
	PBCV_NETF,
	PBCV_NNI,
	PBCV_NCFN,
	PBCV_NFSE,
	PBCV_NFESENS,
	PBCV_NETFS,
	PBCV_NNIS,
	PBCV_NCFNS,
	PBCV_NSTATS
};

pbcv *pbcv_new(void);
int pbcv_init(pbcv *pb, int nx, int ns, long nnz, uintptr_t handle,
	double rtol, double atol, long maxsteps, int errcon, const double *pbar, int adams);
int pbcv_set_pbar(pbcv *pb, const double *pbar);
int pbcv_solve(pbcv *pb, double t0, const double *x0, const double *s0,
	const double *tout, int nt, double *dstX, double *dstS);
int pbcv_stats(pbcv *pb, long *dst);
void pbcv_free(pbcv *pb);

/* pbcv_trace_step's numbers per step before y and S (trace_bridge.c). */
#define PBCV_TRACE_FIELDS 13
int pbcv_trace_start(pbcv *pb, double t0, const double *x0, const double *s0);
int pbcv_trace_step(pbcv *pb, double tout, double tstop, int has_tstop,
	double *ele_w, double *ewt_w, double *rec);

#endif
