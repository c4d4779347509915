//go:build cvodes

#include <string.h>
#include "bridge.h"

/* pbcv_trace_start reinitialises the solver at (t0, x0, s0) for
 * pbcv_trace_step; s0 is row-major nx x ns. */
int pbcv_trace_start(pbcv *pb, double t0, const double *x0, const double *s0)
{
	int i, j, nx = pb->nx, ns = pb->ns;
	int flag;
	memcpy(NV_DATA_S(pb->y), x0, (size_t)nx * sizeof(double));
	flag = CVodeReInit(pb->mem, t0, pb->y);
	if (flag < 0) {
		pb->where = "CVodeReInit";
		return flag;
	}
	if (ns > 0) {
		for (j = 0; j < ns; j++) {
			double *s = NV_DATA_S(pb->yS[j]);
			for (i = 0; i < nx; i++)
				s[i] = s0[i * ns + j];
		}
		flag = CVodeSensReInit(pb->mem, CV_STAGGERED, pb->yS);
		if (flag < 0) {
			pb->where = "CVodeSensReInit";
			return flag;
		}
	}
	return CV_SUCCESS;
}

/* pbcv_trace_step takes one step (CV_ONE_STEP towards tout, which bounds
 * the initial step on the first call as CV_NORMAL's first output does),
 * with the stop time tstop if has_tstop, and writes the step into rec
 * (PBCV_TRACE_FIELDS numbers, then y and the row-major nx x ns S): its
 * end, size and order, the weighted norm of the state's local error
 * estimate (CVodeGetEstLocalErrors with the weights CVODES used for the
 * step), the cumulative failure, iteration and setup counters, and the
 * step and order CVODES will try next. ele and ewt are work vectors of
 * length nx. */
int pbcv_trace_step(pbcv *pb, double tout, double tstop, int has_tstop,
	double *ele_w, double *ewt_w, double *rec)
{
	int i, j, flag, nx = pb->nx, ns = pb->ns;
	realtype tret, v;
	long cnt;
	int q;
	N_Vector ele, ewt;

	if (has_tstop)
		CVodeSetStopTime(pb->mem, tstop);
	flag = CVode(pb->mem, tout, pb->y, &tret, CV_ONE_STEP);
	if (flag < 0) {
		pb->where = "CVode";
		return flag;
	}
	ele = N_VMake_Serial(nx, ele_w, pb->ctx);
	ewt = N_VMake_Serial(nx, ewt_w, pb->ctx);
	rec[0] = tret;
	CVodeGetLastStep(pb->mem, &v); rec[1] = v;
	CVodeGetLastOrder(pb->mem, &q); rec[2] = q;
	CVodeGetEstLocalErrors(pb->mem, ele);
	CVodeGetErrWeights(pb->mem, ewt);
	rec[3] = N_VWrmsNorm(ele, ewt);
	N_VDestroy(ele);
	N_VDestroy(ewt);
	CVodeGetNumErrTestFails(pb->mem, &cnt); rec[4] = cnt;
	rec[5] = 0;
	if (ns > 0) { CVodeGetSensNumErrTestFails(pb->mem, &cnt); rec[5] = cnt; }
	CVodeGetNumNonlinSolvIters(pb->mem, &cnt); rec[6] = cnt;
	rec[7] = 0;
	if (ns > 0) { CVodeGetSensNumNonlinSolvIters(pb->mem, &cnt); rec[7] = cnt; }
	CVodeGetNumNonlinSolvConvFails(pb->mem, &cnt); rec[8] = cnt;
	rec[9] = 0;
	if (ns > 0) { CVodeGetSensNumNonlinSolvConvFails(pb->mem, &cnt); rec[9] = cnt; }
	cnt = 0;
	if (pb->LS != NULL) CVodeGetNumLinSolvSetups(pb->mem, &cnt);
	rec[10] = cnt;
	CVodeGetCurrentStep(pb->mem, &v); rec[11] = v;
	CVodeGetCurrentOrder(pb->mem, &q); rec[12] = q;
	memcpy(rec + PBCV_TRACE_FIELDS, NV_DATA_S(pb->y), (size_t)nx * sizeof(double));
	if (ns > 0) {
		flag = CVodeGetSens(pb->mem, &tret, pb->yS);
		if (flag < 0) {
			pb->where = "CVodeGetSens";
			return flag;
		}
		for (j = 0; j < ns; j++) {
			const double *s = NV_DATA_S(pb->yS[j]);
			for (i = 0; i < nx; i++)
				rec[PBCV_TRACE_FIELDS + nx + i * ns + j] = s[i];
		}
	}
	return CV_SUCCESS;
}
