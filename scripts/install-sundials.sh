#!/usr/bin/env bash
# install-sundials.sh installs Debian's SUNDIALS development package
# (libsundials-dev: CVODES, serial N_Vector, dense SUNMatrix and dense
# SUNLinearSolver) that internal/cvodes links against when built with the
# build tag `cvodes`. It is idempotent: when the CVODES headers and the
# libraries are already present it does nothing. It runs apt-get update at
# most once, and only when something has to be installed.
set -euo pipefail

have_sundials() {
	[ -f /usr/include/cvodes/cvodes.h ] &&
		[ -f /usr/include/sunlinsol/sunlinsol_dense.h ] &&
		[ -f /usr/include/sunmatrix/sunmatrix_dense.h ] &&
		[ -f /usr/include/nvector/nvector_serial.h ] &&
		ldconfig -p 2>/dev/null | grep -q 'libsundials_cvodes\.so'
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
$SUDO apt-get install -y --no-install-recommends libsundials-dev pkg-config

if ! have_sundials; then
	echo "install-sundials: libsundials-dev installed but CVODES headers or libraries are missing" >&2
	exit 1
fi
echo "install-sundials: installed libsundials-dev $(dpkg-query -W -f='${Version}' libsundials-dev)"
