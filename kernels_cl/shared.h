// What the by-value argument structs of kernels share with the C++ launchers: each family declares
// its structs once, in a .h file under kernels_cl/ that both csrc/launch/ (after <cstdint>) and the
// family's OpenCL C include (as ATen's MPS backend shares kernels/*.h with its .metal files). Fields
// are 64-bit integers only, so both compilers lay a struct out alike; the launchers static_assert
// the sizes.
#ifndef FOO_CL_SHARED_H
#define FOO_CL_SHARED_H

#ifdef __OPENCL_C_VERSION__
typedef long foo_int64;
#else
typedef int64_t foo_int64;
#endif

#endif  // FOO_CL_SHARED_H
