/* CVODE reference run for TestCVODEStatistics (SUNDIALS 6.4.1):
   gcc -O2 cvode_hires.c -lsundials_cvode -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm
   ./a.out 1e-4 1e-6 */
#include <stdio.h>
#include <time.h>
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#define Ith(v,i) NV_Ith_S(v,i)
static int f(realtype t, N_Vector yv, N_Vector ydot, void *ud){
  double *y=NV_DATA_S(yv), *d=NV_DATA_S(ydot);
  double k1=1.71,k2=0.43,k3=8.32,k4=0.69,k5=0.035,k6=8.32,kp=280,km=0.69,ks=0.69,oks=0.0007;
  d[0] = -k1*y[0] + k2*y[1] + k6*y[2] + oks;
  d[1] = k1*y[0] - (k2+k3)*y[1];
  d[2] = -(k6+k1)*y[2] + k2*y[3] + k5*y[4];
  d[3] = k3*y[1] + k1*y[2] - (k4+k2)*y[3];
  d[4] = -(k5+k1)*y[4] + k2*(y[5]+y[6]);
  d[5] = -kp*y[5]*y[7] + k4*y[3] + k1*y[4] - k2*y[5] + km*y[6];
  double f7 = kp*y[5]*y[7] - (k2+km+ks)*y[6];
  d[6]=f7; d[7]=-f7; return 0;}
static int jac(realtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2, N_Vector t3){
  double *y=NV_DATA_S(yv);
  double k1=1.71,k2=0.43,k3=8.32,k4=0.69,k5=0.035,k6=8.32,kp=280,km=0.69,ks=0.69;
  SUNMatZero(J);
#define J_(i,j) SM_ELEMENT_D(J,i,j)
  J_(0,0)=-k1; J_(0,1)=k2; J_(0,2)=k6;
  J_(1,0)=k1; J_(1,1)=-(k2+k3);
  J_(2,2)=-(k6+k1); J_(2,3)=k2; J_(2,4)=k5;
  J_(3,1)=k3; J_(3,2)=k1; J_(3,3)=-(k4+k2);
  J_(4,4)=-(k5+k1); J_(4,5)=k2; J_(4,6)=k2;
  J_(5,3)=k4; J_(5,4)=k1; J_(5,5)=-kp*y[7]-k2; J_(5,6)=km; J_(5,7)=-kp*y[5];
  double d=k2+km+ks;
  J_(6,5)=kp*y[7]; J_(6,6)=-d; J_(6,7)=kp*y[5];
  J_(7,5)=-kp*y[7]; J_(7,6)=d; J_(7,7)=-kp*y[5];
  return 0;}
int main(int argc, char**argv){
  double rtol = argc>1? atof(argv[1]):1e-6, atol = argc>2? atof(argv[2]):1e-8;
  int reps = argc>3? atoi(argv[3]):1;
  SUNContext ctx; SUNContext_Create(NULL,&ctx);
  N_Vector y = N_VNew_Serial(8,ctx);
  void *mem = CVodeCreate(CV_BDF, ctx);
  double y0[8]={1,0,0,0,0,0,0,0.0057};
  for(int i=0;i<8;i++) Ith(y,i)=y0[i];
  CVodeInit(mem,f,0,y);
  CVodeSStolerances(mem,rtol,atol);
  SUNMatrix A = SUNDenseMatrix(8,8,ctx); SUNLinearSolver LS = SUNLinSol_Dense(y,A,ctx);
  CVodeSetLinearSolver(mem,LS,A); CVodeSetJacFn(mem,jac);
  CVodeSetMaxNumSteps(mem,100000);
  double T=321.8122, t;
  struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a);
  for(int r=0;r<reps;r++){
    for(int i=0;i<8;i++) Ith(y,i)=y0[i];
    CVodeReInit(mem,0,y);
    CVodeSetStopTime(mem,T);
    CVode(mem,T,y,&t,CV_NORMAL);
  }
  clock_gettime(CLOCK_MONOTONIC,&b);
  long nst,nfe,nje,nsetups,netf,nni,ncfn;
  CVodeGetNumSteps(mem,&nst); CVodeGetNumRhsEvals(mem,&nfe); CVodeGetNumJacEvals(mem,&nje);
  CVodeGetNumLinSolvSetups(mem,&nsetups); CVodeGetNumErrTestFails(mem,&netf); CVodeGetNumNonlinSolvIters(mem,&nni);
  CVodeGetNumNonlinSolvConvFails(mem,&ncfn);
  printf("t=%g y1=%.10e y6=%.10e steps %ld nfe %ld nje %ld nsetups %ld netf %ld nni %ld ncfn %ld  time/run %.1f us\n",t,Ith(y,0),Ith(y,5),nst,nfe,nje,nsetups,netf,nni,ncfn,
   ((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/1e3/reps);
  return 0;}
