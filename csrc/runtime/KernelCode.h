// Kernel code a CPU OpenCL runtime loads as shared objects, mapped in so it does not run slowly.
#pragma once

namespace foo_cl::runtime {

// Maps in every page of the kernel objects PoCL has loaded since the last call (cheap when it has
// loaded none: one look at the loader's count). Called after each launch on a CPU device; PoCL
// loads a kernel's object when the command runs, so its first runs may come before the mapping.
// NOTE: PoCL runs a kernel from a shared object it loads at the kernel's first launch, and the OS
// maps an object's pages only when they are touched. Its AVX-512 code reads constants with masked
// loads (vmovdqu8 {k}{z}: a comparison's 0/1 result), and on AMD Zen 4/5 a masked load whose mask
// is all zero, from a page not mapped yet, takes a microcode assist each time: `x < -1` on 256K
// floats took 2.2 ms instead of 27 us, and kept taking it until some launch produced a true.
void map_loaded_kernel_code();

}  // namespace foo_cl::runtime
