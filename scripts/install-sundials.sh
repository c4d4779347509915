#!/usr/bin/env bash
# install-sundials.sh installs Debian's SUNDIALS development package
# (libsundials-dev: CVODES, serial N_Vector, dense and sparse SUNMatrix,
# dense and KLU SUNLinearSolver) and SuiteSparse's (libsuitesparse-dev: KLU
# and its headers in /usr/include/suitesparse) that internal/cvodes links
# against when built with the build tag `cvodes`. It is idempotent: when
# the CVODES and KLU headers and the libraries are already present it does
# nothing. It runs apt-get update at most once, and only when something
# has to be installed.
#
# Debian's package ships no pkg-config files (only CMake configuration), so
# internal/cvodes names the libraries directly in its #cgo LDFLAGS:
# -lsundials_cvodes -lsundials_nvecserial -lsundials_sunlinsoldense
# -lsundials_sunmatrixdense -lsundials_sunlinsolklu
# -lsundials_sunmatrixsparse -lklu, and -I/usr/include/suitesparse in its
# CFLAGS (sunlinsol_klu.h includes klu.h). Beware that libsundials-dev
# depends on the MPI, PETSc, hypre and Trilinos development packages: on
# bookworm the first install adds about 150 packages and 540 MB (PETSc
# already pulls in libsuitesparse-dev; it is named for the KLU headers).
set -euo pipefail

have_sundials() {
	[ -f /usr/include/cvodes/cvodes.h ] &&
		[ -f /usr/include/sunlinsol/sunlinsol_dense.h ] &&
		[ -f /usr/include/sunmatrix/sunmatrix_dense.h ] &&
		[ -f /usr/include/nvector/nvector_serial.h ] &&
		[ -f /usr/include/sunlinsol/sunlinsol_klu.h ] &&
		[ -f /usr/include/sunmatrix/sunmatrix_sparse.h ] &&
		[ -f /usr/include/suitesparse/klu.h ] &&
		# grep without -q reads all of ldconfig's output: with -q and
		# pipefail, ldconfig could die of SIGPIPE and fail the check.
		ldconfig -p 2>/dev/null | grep 'libsundials_cvodes\.so' >/dev/null &&
		ldconfig -p 2>/dev/null | grep 'libsundials_sunlinsolklu\.so' >/dev/null &&
		ldconfig -p 2>/dev/null | grep 'libklu\.so ' >/dev/null
}

if have_sundials; then
	echo "install-sundials: SUNDIALS and KLU already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-sundials: need root (or sudo) to install libsundials-dev and libsuitesparse-dev" >&2
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends libsundials-dev libsuitesparse-dev

if ! have_sundials; then
	echo "install-sundials: libsundials-dev and libsuitesparse-dev installed but CVODES or KLU headers or libraries are missing" >&2
	exit 1
fi
echo "install-sundials: installed libsundials-dev $(dpkg-query -W -f='${Version}' libsundials-dev), libsuitesparse-dev $(dpkg-query -W -f='${Version}' libsuitesparse-dev)"
