#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages foo-cl needs when they are missing: a C++ compiler, Python
# headers and venv, the OpenCL headers and ICD loader, and PoCL when no OpenCL platform is installed.
# With --test, also the two OpenCL implementations the tests run on, PoCL and Mesa's rusticl, and
# (as root) CLBlast, whose GEMM the tuner times against foo's own where it is installed.
# Without root it names the packages to install and stops.
set -euo pipefail
PYTHON=${PYTHON:-python3}
missing=()

command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
[ -f /usr/include/CL/cl.h ] || missing+=(opencl-headers)
[ "$(g++ -print-file-name=libOpenCL.so 2>/dev/null)" != "libOpenCL.so" ] || missing+=(ocl-icd-opencl-dev)
if [ "${1:-}" = "--test" ]; then
  [ -f /etc/OpenCL/vendors/pocl.icd ] || missing+=(pocl-opencl-icd)
  [ -f /etc/OpenCL/vendors/rusticl.icd ] || missing+=(mesa-opencl-icd)
  # CLBlast is optional (the tests check both cases): installed as root, never asked for otherwise.
  # NOTE: grep -c reads all of ldconfig's output: grep -q could end the pipe early, which pipefail reports.
  if [ "$(id -u)" -eq 0 ] && ! /sbin/ldconfig -p 2>/dev/null | grep -c libclblast.so.1 >/dev/null; then
    missing+=(libclblast1)
  fi
else
  ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || missing+=(pocl-opencl-icd)
fi
"$PYTHON" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  2>/dev/null || missing+=(python3-dev)
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "foo-cl needs these system packages: ${missing[*]}" >&2
  echo "Install them as root, e.g.: sudo apt-get install -y ${missing[*]} clinfo" >&2
  echo "(pocl-opencl-icd runs foo on the CPU; a GPU vendor's OpenCL driver works instead of it)" >&2
  exit 1
fi
echo "foo-cl: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" clinfo ccache >/dev/null
