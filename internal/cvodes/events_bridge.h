//go:build cvodes

// events_bridge.h declares the C side of package cvodes's event loop
// (events.go): CVODES's own root finding (CVodeRootInit) on the model's
// root functions, one CVode call that stops at a root or an output time,
// and the re-initialisation after the state jumps.

#ifndef PBGEN_CVODES_EVENTS_BRIDGE_H
#define PBGEN_CVODES_EVENTS_BRIDGE_H

#include "bridge.h"

int pbcv_ev_rootinit(pbcv *pb, int nr);
int pbcv_ev_reinit(pbcv *pb, double t, const double *x, const double *s);
int pbcv_ev_step(pbcv *pb, double tout, double *tret, int *rootsfound,
	double *dstX, double *dstS);

#endif
