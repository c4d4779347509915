#!/usr/bin/env bash
# install-sundials.sh installs Debian's SUNDIALS development package
# (libsundials-dev: CVODES, serial N_Vector, dense SUNMatrix and dense
# SUNLinearSolver) that internal/cvodes links against when built with the
# build tag `cvodes`. It is idempotent: when the CVODES headers and the
# libraries are already present it does nothing. It runs apt-get update at
# most once, and only when something has to be installed.
#
# Debian's package ships no pkg-config files (only CMake configuration), so
# internal/cvodes names the libraries directly in its #cgo LDFLAGS:
# -lsundials_cvodes -lsundials_nvecserial -lsundials_sunlinsoldense
# -lsundials_sunmatrixdense. Beware that libsundials-dev depends on the MPI,
# PETSc, hypre and Trilinos development packages: on bookworm the first
# install adds about 150 packages and 540 MB.
set -euo pipefail

have_sundials() {
	[ -f /usr/include/cvodes/cvodes.h ] &&
		[ -f /usr/include/sunlinsol/sunlinsol_dense.h ] &&
		[ -f /usr/include/sunmatrix/sunmatrix_dense.h ] &&
		[ -f /usr/include/nvector/nvector_serial.h ] &&
		# grep without -q reads all of ldconfig's output: with -q and
		# pipefail, ldconfig could die of SIGPIPE and fail the check.
		ldconfig -p 2>/dev/null | grep 'libsundials_cvodes\.so' >/dev/null
}

if have_sundials; then
	echo "install-sundials: SUNDIALS already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-sundials: need root (or sudo) to install libsundials-dev" >&2
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends libsundials-dev

if ! have_sundials; then
	echo "install-sundials: libsundials-dev installed but CVODES headers or libraries are missing" >&2
	exit 1
fi
echo "install-sundials: installed libsundials-dev $(dpkg-query -W -f='${Version}' libsundials-dev)"
