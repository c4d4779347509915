//go:build cvodes

#include <string.h>
#include "events_bridge.h"
#include "_cgo_export.h"

/* pbcv_roots is CVODES's root function: the model's RootsTo. */
static int pbcv_roots(realtype t, N_Vector y, realtype *gout, void *ud)
{
	pbcv *pb = (pbcv *)ud;
	return pbcvGoRoots(pb->handle, t, NV_DATA_S(y), gout);
}

int pbcv_ev_rootinit(pbcv *pb, int nr)
{
	int flag = CVodeRootInit(pb->mem, nr, pbcv_roots);
	if (flag < 0)
		pb->where = "CVodeRootInit";
	return flag;
}

/* pbcv_ev_reinit restarts CVODES at (t, x) with sensitivities s (row-major
 * nx x ns; ignored without sensitivities): after an event the state jumps,
 * and the history of the multistep method is void. */
int pbcv_ev_reinit(pbcv *pb, double t, const double *x, const double *s)
{
	int i, j, flag, nx = pb->nx, ns = pb->ns;
	pb->kfail = -1;
	pb->tcur = t;
	pb->err_code = 0;
	pb->err_msg[0] = '\0';
	pb->where = NULL;
	memcpy(NV_DATA_S(pb->y), x, (size_t)nx * sizeof(double));
	flag = CVodeReInit(pb->mem, t, pb->y);
	if (flag < 0) {
		pb->where = "CVodeReInit";
		return flag;
	}
	if (ns == 0)
		return CV_SUCCESS;
	for (j = 0; j < ns; j++) {
		double *sj = NV_DATA_S(pb->yS[j]);
		for (i = 0; i < nx; i++)
			sj[i] = s[i * ns + j];
	}
	flag = CVodeSensReInit(pb->mem, CV_STAGGERED, pb->yS);
	if (flag < 0)
		pb->where = "CVodeSensReInit";
	return flag;
}

/* pbcv_ev_step integrates towards tout and stops there or at a root
 * (CV_ROOT_RETURN, with rootsfound filled), writing the time reached, the
 * state and (with sensitivities) S, row-major nx x ns. */
int pbcv_ev_step(pbcv *pb, double tout, double *tret, int *rootsfound,
	double *dstX, double *dstS)
{
	int i, j, flag, flag2, nx = pb->nx, ns = pb->ns;
	realtype t;
	flag = CVode(pb->mem, tout, pb->y, &t, CV_NORMAL);
	if (flag < 0) {
		CVodeGetCurrentTime(pb->mem, &pb->tcur);
		pb->where = "CVode";
		return flag;
	}
	pb->tcur = t;
	*tret = t;
	memcpy(dstX, NV_DATA_S(pb->y), (size_t)nx * sizeof(double));
	if (ns > 0) {
		flag2 = CVodeGetSens(pb->mem, &t, pb->yS);
		if (flag2 < 0) {
			pb->where = "CVodeGetSens";
			return flag2;
		}
		for (j = 0; j < ns; j++) {
			const double *sj = NV_DATA_S(pb->yS[j]);
			for (i = 0; i < nx; i++)
				dstS[i * ns + j] = sj[i];
		}
	}
	if (flag == CV_ROOT_RETURN) {
		flag2 = CVodeGetRootInfo(pb->mem, rootsfound);
		if (flag2 < 0) {
			pb->where = "CVodeGetRootInfo";
			return flag2;
		}
	}
	return flag;
}
