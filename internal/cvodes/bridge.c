//go:build cvodes

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bridge.h"
#include "_cgo_export.h"

/* Trampolines: unpack N_Vectors and the dense or sparse matrix into plain
 * arrays and call the exported Go functions. They run on the thread that
 * called CVode. */

static int pbcv_rhs(realtype t, N_Vector y, N_Vector ydot, void *ud)
{
	pbcv *pb = (pbcv *)ud;
	return pbcvGoRhs(pb->handle, t, NV_DATA_S(y), NV_DATA_S(ydot));
}

static int pbcv_jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J,
	void *ud, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
	pbcv *pb = (pbcv *)ud;
	(void)fy; (void)tmp1; (void)tmp2; (void)tmp3;
	/* SUNDenseMatrix data is one column-major block with leading
	 * dimension M = nx: element (i,j) is at data[j*nx+i]. */
	return pbcvGoJac(pb->handle, t, NV_DATA_S(y), SM_DATA_D(J));
}

static int pbcv_jac_sparse(realtype t, N_Vector y, N_Vector fy, SUNMatrix J,
	void *ud, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
	pbcv *pb = (pbcv *)ud;
	(void)fy; (void)tmp1; (void)tmp2; (void)tmp3;
	/* CVODES zeroes the whole sparse matrix (values and both index
	 * arrays) before it calls the Jacobian function, so the Go side
	 * writes the CSR pattern as well as the values. */
	return pbcvGoJacSparse(pb->handle, t, NV_DATA_S(y), SM_DATA_S(J),
		SM_INDEXPTRS_S(J), SM_INDEXVALS_S(J));
}

static int pbcv_sens_rhs(int Ns, realtype t, N_Vector y, N_Vector ydot,
	N_Vector *yS, N_Vector *ySdot, void *ud, N_Vector tmp1, N_Vector tmp2)
{
	pbcv *pb = (pbcv *)ud;
	int j;
	(void)ydot; (void)tmp1; (void)tmp2;
	for (j = 0; j < Ns; j++) {
		pb->ys_ptrs[j] = NV_DATA_S(yS[j]);
		pb->ysdot_ptrs[j] = NV_DATA_S(ySdot[j]);
	}
	return pbcvGoSensRhs(pb->handle, t, NV_DATA_S(y), pb->ys_ptrs,
		pb->ysdot_ptrs);
}

/* pbcv_err keeps CVODES's error and warning messages instead of printing
 * them to stderr; the Go side puts the last one into its error value. */
static void pbcv_err(int error_code, const char *module, const char *function,
	char *msg, void *ud)
{
	pbcv *pb = (pbcv *)ud;
	pb->err_code = error_code;
	snprintf(pb->err_msg, sizeof pb->err_msg, "%s: %s: %s",
		module ? module : "", function ? function : "", msg ? msg : "");
}

pbcv *pbcv_new(void)
{
	return (pbcv *)calloc(1, sizeof(pbcv));
}

#define PBCV_CHECK(call, name) \
	do { \
		int flag_ = (call); \
		if (flag_ < 0) { pb->where = (name); return flag_; } \
	} while (0)

#define PBCV_ALLOC(expr, name) \
	do { \
		if ((expr) == NULL) { pb->where = (name); return CV_MEM_FAIL; } \
	} while (0)

int pbcv_init(pbcv *pb, int nx, int ns, long nnz, uintptr_t handle,
	double rtol, double atol, long maxsteps, int errcon, const double *pbar, int adams)
{
	int j;
	pb->nx = nx;
	pb->ns = ns;
	pb->nnz = nnz;
	pb->handle = handle;
	if (SUNContext_Create(NULL, &pb->ctx) != 0) {
		pb->ctx = NULL;
		pb->where = "SUNContext_Create";
		return CV_MEM_FAIL;
	}
	PBCV_ALLOC(pb->y = N_VNew_Serial(nx, pb->ctx), "N_VNew_Serial");
	N_VConst(0.0, pb->y);
	PBCV_ALLOC(pb->mem = CVodeCreate(adams ? CV_ADAMS : CV_BDF, pb->ctx), "CVodeCreate");
	PBCV_CHECK(CVodeSetErrHandlerFn(pb->mem, pbcv_err, pb), "CVodeSetErrHandlerFn");
	PBCV_CHECK(CVodeSetUserData(pb->mem, pb), "CVodeSetUserData");
	PBCV_CHECK(CVodeInit(pb->mem, pbcv_rhs, 0.0, pb->y), "CVodeInit");
	PBCV_CHECK(CVodeSStolerances(pb->mem, rtol, atol), "CVodeSStolerances");
	PBCV_CHECK(CVodeSetMaxNumSteps(pb->mem, maxsteps), "CVodeSetMaxNumSteps");
	if (adams) {
		/* CV_ADAMS with functional iteration (no acceleration), CVODES's
		 * non-stiff configuration: no matrix, no linear solver. */
		PBCV_ALLOC(pb->NLS = SUNNonlinSol_FixedPoint(pb->y, 0, pb->ctx), "SUNNonlinSol_FixedPoint");
		PBCV_CHECK(CVodeSetNonlinearSolver(pb->mem, pb->NLS), "CVodeSetNonlinearSolver");
	} else if (nnz > 0) {
		/* The pattern holds the diagonal, so CVODES forms I - gamma J in
		 * place and KLU's symbolic analysis stays valid for every setup. */
		PBCV_ALLOC(pb->A = SUNSparseMatrix(nx, nx, nnz, CSR_MAT, pb->ctx), "SUNSparseMatrix");
		PBCV_ALLOC(pb->LS = SUNLinSol_KLU(pb->y, pb->A, pb->ctx), "SUNLinSol_KLU");
		PBCV_CHECK(CVodeSetLinearSolver(pb->mem, pb->LS, pb->A), "CVodeSetLinearSolver");
		PBCV_CHECK(CVodeSetJacFn(pb->mem, pbcv_jac_sparse), "CVodeSetJacFn");
	} else {
		PBCV_ALLOC(pb->A = SUNDenseMatrix(nx, nx, pb->ctx), "SUNDenseMatrix");
		PBCV_ALLOC(pb->LS = SUNLinSol_Dense(pb->y, pb->A, pb->ctx), "SUNLinSol_Dense");
		PBCV_CHECK(CVodeSetLinearSolver(pb->mem, pb->LS, pb->A), "CVodeSetLinearSolver");
		PBCV_CHECK(CVodeSetJacFn(pb->mem, pbcv_jac), "CVodeSetJacFn");
	}
	if (ns == 0)
		return CV_SUCCESS;
	PBCV_ALLOC(pb->ys_ptrs = (double **)calloc(ns, sizeof(double *)), "calloc");
	PBCV_ALLOC(pb->ysdot_ptrs = (double **)calloc(ns, sizeof(double *)), "calloc");
	PBCV_ALLOC(pb->yS = N_VCloneVectorArray(ns, pb->y), "N_VCloneVectorArray");
	for (j = 0; j < ns; j++)
		N_VConst(0.0, pb->yS[j]);
	PBCV_CHECK(CVodeSensInit(pb->mem, ns, CV_STAGGERED, pbcv_sens_rhs, pb->yS), "CVodeSensInit");
	if (pbar != NULL)
		/* CVODES copies pbar; p is only read by its difference quotients,
		 * which the analytic fS replaces. */
		PBCV_CHECK(CVodeSetSensParams(pb->mem, NULL, (double *)pbar, NULL), "CVodeSetSensParams");
	PBCV_CHECK(CVodeSensEEtolerances(pb->mem), "CVodeSensEEtolerances");
	PBCV_CHECK(CVodeSetSensErrCon(pb->mem, errcon ? SUNTRUE : SUNFALSE), "CVodeSetSensErrCon");
	if (adams) {
		PBCV_ALLOC(pb->NLSS = SUNNonlinSol_FixedPointSens(ns, pb->y, 0, pb->ctx), "SUNNonlinSol_FixedPointSens");
		PBCV_CHECK(CVodeSetNonlinearSolverSensStg(pb->mem, pb->NLSS), "CVodeSetNonlinearSolverSensStg");
	}
	return CV_SUCCESS;
}

/* copy_sens writes the ns sensitivity vectors into dst as a row-major
 * nx x ns matrix. */
static void copy_sens(pbcv *pb, double *dst)
{
	int i, j, nx = pb->nx, ns = pb->ns;
	for (j = 0; j < ns; j++) {
		const double *s = NV_DATA_S(pb->yS[j]);
		for (i = 0; i < nx; i++)
			dst[i * ns + j] = s[i];
	}
}

/* pbcv_set_pbar replaces the scales of the sensitivity columns
 * (CVodeSetSensParams' pbar, which CVODES copies) for the next solves:
 * CVodeSensEEtolerances computes S's error weights from them at every
 * step. */
int pbcv_set_pbar(pbcv *pb, const double *pbar)
{
	PBCV_CHECK(CVodeSetSensParams(pb->mem, NULL, (double *)pbar, NULL), "CVodeSetSensParams");
	return CV_SUCCESS;
}

int pbcv_solve(pbcv *pb, double t0, const double *x0, const double *s0,
	const double *tout, int nt, double *dstX, double *dstS)
{
	int i, j, k, flag, nx = pb->nx, ns = pb->ns;
	double *y = NV_DATA_S(pb->y);
	realtype tret;

	pb->kfail = -1;
	pb->tcur = t0;
	pb->err_code = 0;
	pb->err_msg[0] = '\0';
	pb->where = NULL;
	memcpy(y, x0, (size_t)nx * sizeof(double));
	PBCV_CHECK(CVodeReInit(pb->mem, t0, pb->y), "CVodeReInit");
	if (ns > 0) {
		for (j = 0; j < ns; j++) {
			double *s = NV_DATA_S(pb->yS[j]);
			for (i = 0; i < nx; i++)
				s[i] = s0[i * ns + j];
		}
		PBCV_CHECK(CVodeSensReInit(pb->mem, CV_STAGGERED, pb->yS), "CVodeSensReInit");
	}
	for (k = 0; k < nt; k++) {
		if (tout[k] == t0) {
			/* CVode refuses tout == t0; the answer is the initial value. */
			memcpy(dstX + (size_t)k * nx, x0, (size_t)nx * sizeof(double));
			if (ns > 0)
				memcpy(dstS + (size_t)k * nx * ns, s0, (size_t)nx * ns * sizeof(double));
			continue;
		}
		flag = CVode(pb->mem, tout[k], pb->y, &tret, CV_NORMAL);
		if (flag < 0) {
			pb->kfail = k;
			CVodeGetCurrentTime(pb->mem, &pb->tcur);
			pb->where = "CVode";
			return flag;
		}
		pb->tcur = tret;
		memcpy(dstX + (size_t)k * nx, y, (size_t)nx * sizeof(double));
		if (ns > 0) {
			flag = CVodeGetSens(pb->mem, &tret, pb->yS);
			if (flag < 0) {
				pb->kfail = k;
				pb->where = "CVodeGetSens";
				return flag;
			}
			copy_sens(pb, dstS + (size_t)k * nx * ns);
		}
	}
	return CV_SUCCESS;
}

int pbcv_stats(pbcv *pb, long *dst)
{
	memset(dst, 0, PBCV_NSTATS * sizeof(long));
	PBCV_CHECK(CVodeGetNumSteps(pb->mem, &dst[PBCV_NST]), "CVodeGetNumSteps");
	PBCV_CHECK(CVodeGetNumRhsEvals(pb->mem, &dst[PBCV_NFE]), "CVodeGetNumRhsEvals");
	if (pb->LS != NULL) {
		/* CV_ADAMS with fixed-point iteration has no linear solver. */
		PBCV_CHECK(CVodeGetNumJacEvals(pb->mem, &dst[PBCV_NJE]), "CVodeGetNumJacEvals");
		PBCV_CHECK(CVodeGetNumLinSolvSetups(pb->mem, &dst[PBCV_NSETUPS]), "CVodeGetNumLinSolvSetups");
	}
	PBCV_CHECK(CVodeGetNumErrTestFails(pb->mem, &dst[PBCV_NETF]), "CVodeGetNumErrTestFails");
	PBCV_CHECK(CVodeGetNumNonlinSolvIters(pb->mem, &dst[PBCV_NNI]), "CVodeGetNumNonlinSolvIters");
	PBCV_CHECK(CVodeGetNumNonlinSolvConvFails(pb->mem, &dst[PBCV_NCFN]), "CVodeGetNumNonlinSolvConvFails");
	if (pb->ns == 0)
		return CV_SUCCESS;
	PBCV_CHECK(CVodeGetSensNumRhsEvals(pb->mem, &dst[PBCV_NFSE]), "CVodeGetSensNumRhsEvals");
	PBCV_CHECK(CVodeGetNumRhsEvalsSens(pb->mem, &dst[PBCV_NFESENS]), "CVodeGetNumRhsEvalsSens");
	PBCV_CHECK(CVodeGetSensNumErrTestFails(pb->mem, &dst[PBCV_NETFS]), "CVodeGetSensNumErrTestFails");
	PBCV_CHECK(CVodeGetSensNumNonlinSolvIters(pb->mem, &dst[PBCV_NNIS]), "CVodeGetSensNumNonlinSolvIters");
	PBCV_CHECK(CVodeGetSensNumNonlinSolvConvFails(pb->mem, &dst[PBCV_NCFNS]), "CVodeGetSensNumNonlinSolvConvFails");
	return CV_SUCCESS;
}

void pbcv_free(pbcv *pb)
{
	if (pb == NULL)
		return;
	if (pb->mem != NULL)
		CVodeFree(&pb->mem);
	if (pb->yS != NULL)
		N_VDestroyVectorArray(pb->yS, pb->ns);
	if (pb->LS != NULL)
		SUNLinSolFree(pb->LS);
	if (pb->NLS != NULL)
		SUNNonlinSolFree(pb->NLS);
	if (pb->NLSS != NULL)
		SUNNonlinSolFree(pb->NLSS);
	if (pb->A != NULL)
		SUNMatDestroy(pb->A);
	if (pb->y != NULL)
		N_VDestroy(pb->y);
	if (pb->ctx != NULL)
		SUNContext_Free(&pb->ctx);
	free(pb->ys_ptrs);
	free(pb->ysdot_ptrs);
	free(pb);
}
