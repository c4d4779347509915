//go:build cvodes

#include <string.h>
#include "bridge.h"

#define PBCV_CHECK(call, name) \
	do { \
		int flag_ = (call); \
		if (flag_ < 0) { pb->where = (name); return flag_; } \
	} while (0)

/* pbcv_trace integrates from t0 to tend in CV_ONE_STEP mode and records
 * every accepted step in rec (PBCV_TRACE_FIELDS numbers, then y and the
 * row-major nx x ns S): the step's end, size and order, the weighted norm
 * of the state's local error estimate (CVodeGetEstLocalErrors with the
 * weights CVODES used for the step), the cumulative failure and iteration
 * counters, and the step and order CVODES will try next. With ntstop > 0
 * the stop times are set in turn (CVodeSetStopTime), so that steps land on
 * them as pbgen's BDF lands on output times. It returns the number of
 * steps recorded, or a negative CVODES flag. */
int pbcv_trace(pbcv *pb, double t0, const double *x0, const double *s0,
	double tfirst, double tend, const double *tstops, int ntstop, int maxrec, double *rec)
{
	int i, j, n = 0, k = 0, flag, nx = pb->nx, ns = pb->ns;
	int width = PBCV_TRACE_FIELDS + nx + nx * ns;
	double *y = NV_DATA_S(pb->y);
	realtype tret, v;
	long cnt;
	int q;
	N_Vector ele = NULL, ewt = NULL;

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
	ele = N_VClone(pb->y);
	ewt = N_VClone(pb->y);
	if (ntstop > 0)
		CVodeSetStopTime(pb->mem, tstops[0]);
	tret = t0;
	while (tret < tend && n < maxrec) {
		double *r = rec + (size_t)n * width;
		/* The first call's tout bounds the initial step, as CV_NORMAL's first
		 * output does. */
		flag = CVode(pb->mem, n == 0 ? tfirst : tend, pb->y, &tret, CV_ONE_STEP);
		if (flag < 0) {
			N_VDestroy(ele);
			N_VDestroy(ewt);
			return flag;
		}
		r[0] = tret;
		CVodeGetLastStep(pb->mem, &v); r[1] = v;
		CVodeGetLastOrder(pb->mem, &q); r[2] = q;
		CVodeGetEstLocalErrors(pb->mem, ele);
		CVodeGetErrWeights(pb->mem, ewt);
		r[3] = N_VWrmsNorm(ele, ewt);
		CVodeGetNumErrTestFails(pb->mem, &cnt); r[4] = cnt;
		r[5] = 0;
		if (ns > 0) { CVodeGetSensNumErrTestFails(pb->mem, &cnt); r[5] = cnt; }
		CVodeGetNumNonlinSolvIters(pb->mem, &cnt); r[6] = cnt;
		r[7] = 0;
		if (ns > 0) { CVodeGetSensNumNonlinSolvIters(pb->mem, &cnt); r[7] = cnt; }
		CVodeGetNumNonlinSolvConvFails(pb->mem, &cnt); r[8] = cnt;
		r[9] = 0;
		if (ns > 0) { CVodeGetSensNumNonlinSolvConvFails(pb->mem, &cnt); r[9] = cnt; }
		CVodeGetNumLinSolvSetups(pb->mem, &cnt); r[10] = cnt;
		CVodeGetCurrentStep(pb->mem, &v); r[11] = v;
		CVodeGetCurrentOrder(pb->mem, &q); r[12] = q;
		memcpy(r + PBCV_TRACE_FIELDS, y, (size_t)nx * sizeof(double));
		if (ns > 0) {
			CVodeGetSens(pb->mem, &tret, pb->yS);
			for (j = 0; j < ns; j++) {
				const double *s = NV_DATA_S(pb->yS[j]);
				for (i = 0; i < nx; i++)
					r[PBCV_TRACE_FIELDS + nx + i * ns + j] = s[i];
			}
		}
		n++;
		if (ntstop > 0 && k < ntstop && tret >= tstops[k]) {
			k++;
			if (k < ntstop)
				CVodeSetStopTime(pb->mem, tstops[k]);
		}
	}
	N_VDestroy(ele);
	N_VDestroy(ewt);
	return n;
}
